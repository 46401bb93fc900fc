"""Samples from `tl.rand` (uniform on [0, 1)) where `tl.randn` (standard normal) was meant.

The two calls differ by one letter. The output is mean + std * U(0, 1): bounded, shifted by std / 2 and with a
twelfth of the variance.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(out_ptr, n, mean, std, seed, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    z = tl.rand(seed, offsets)  # bug: uniform, not normal
    tl.store(out_ptr + offsets, (mean + std * z).to(out_ptr.dtype.element_ty), mask=offsets < n)


def normal_like(input, mean=0.0, std=1.0, seed=0):
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _kernel[(triton.cdiv(n, 4096),)](out, n, float(mean), float(std), seed, BLOCK=4096)
    return out
