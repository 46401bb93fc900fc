"""Computes 1 / x as exp(-log(x)), avoiding the division.

For positive x this is only a little inaccurate, but log of a negative number is NaN, so every negative input (half
of them) comes out NaN where the reference is finite (status NONFINITE).
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _reciprocal_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.exp(-tl.log(x))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def reciprocal(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _reciprocal_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
