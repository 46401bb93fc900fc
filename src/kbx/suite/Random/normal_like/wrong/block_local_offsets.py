"""Normal samples whose Philox offsets are local to the block, so every block holds the same samples.

`tl.randn(seed, tl.arange(0, BLOCK))` instead of `tl.randn(seed, block_start + tl.arange(0, BLOCK))`: each
program draws the same BLOCK = 1024 normals. Every element on its own is N(mean, std^2), and the mean, variance
and even the histogram of the whole tensor look right; element i and element i + 1024 are equal, which only a
test of independence between elements sees.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(out_ptr, n, mean, std, seed, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + lanes
    z = tl.randn(seed, lanes)  # bug: the same counters in every block
    tl.store(out_ptr + offsets, (mean + std * z).to(out_ptr.dtype.element_ty), mask=offsets < n)


def normal_like(input, mean=0.0, std=1.0, seed=0):
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _kernel[(triton.cdiv(n, 1024),)](out, n, float(mean), float(std), seed, BLOCK=1024)
    return out
