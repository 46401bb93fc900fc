"""Computes x - floor(x), the fractional part as defined for positive numbers.

Right for every x >= 0, but PyTorch's frac keeps the sign: frac(-2.75) = -0.75, whereas x - floor(x) gives 0.25.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _frac_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = x - tl.floor(x)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def frac(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _frac_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
