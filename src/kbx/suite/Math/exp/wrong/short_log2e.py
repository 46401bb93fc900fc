"""Computes e^x as 2^(x * 1.4427), with log2(e) = 1.44269504... written to five significant digits.

The constant is off by 5e-6 relative, which looks harmless, but the error of the exponent grows with x: near
overflow (x ~ 88) the result is off by ~3e-4 relative, thirty times the fp32 tolerance, and results just below
the overflow threshold turn into +inf.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _exp_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.exp2(x * 1.4427)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def exp(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _exp_kernel[(triton.cdiv(n, 2048),)](x, out, n, BLOCK=2048)
    return out
