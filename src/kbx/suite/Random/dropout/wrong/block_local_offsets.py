"""Dropout whose Philox offsets are local to the block, so every block gets the same mask.

`tl.rand(seed, tl.arange(0, BLOCK))` instead of `tl.rand(seed, block_start + tl.arange(0, BLOCK))`: each
program draws the same BLOCK uniforms, so the mask repeats with period BLOCK = 1024. The keep rate and scaling
are right, element by element, and only a test of independence between elements sees it: the mask at i and at
i + 1024 agree always.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(x_ptr, out_ptr, n, p, scale, seed, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + lanes
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    u = tl.rand(seed, lanes)  # bug: the same counters in every block
    y = tl.where(u >= p, x * scale, 0.0)
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


def dropout(input, p=0.5, training=True, seed=0):
    if not training:
        return input
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    _kernel[(triton.cdiv(n, 1024),)](x, out, n, p, scale, seed, BLOCK=1024)
    return out.view(input.shape)
