"""Casts the exponent to an int and multiplies: x^e becomes x^int(e).

Every integral exponent is right, signs included, so 2.0 and 3.0 pass; but 0.5 becomes 0 (all ones), -1.5 becomes -1
(a reciprocal), and 1.3 becomes 1 (the input itself).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _pow_kernel(x_ptr, y_ptr, n, N: tl.constexpr, NEGATIVE: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    b = tl.where(NEGATIVE, 1.0 / x, x)
    y = tl.full(x.shape, 1.0, tl.float32)
    for _ in tl.static_range(N):
        y = y * b
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def pow(input, exponent):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _pow_kernel[(triton.cdiv(n, 1024),)](x, out, n, N=abs(int(exponent)), NEGATIVE=exponent < 0, BLOCK=1024)
    return out
