"""Reduces the range correctly but stops the series at u^7.

After the two reductions |u| <= 0.414, where the first term left out, u^9/9, is still 4e-5: invisible in bf16, four
times the fp32 tolerance near the edges of the reduced interval.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _atan_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    ax = tl.abs(x)
    inverted = ax > 1.0
    t = tl.where(inverted, 1.0 / ax, ax)
    shifted = t > 0.41421356237309503
    u = tl.where(shifted, (t - 1.0) / (t + 1.0), t)
    u2 = u * u
    a = u + u * (u2 * (-1.0 / 3.0 + u2 * (1.0 / 5.0 + u2 * (-1.0 / 7.0))))
    a = tl.where(shifted, 0.7853981633974483 + a, a)
    a = tl.where(inverted, 1.5707963267948966 - a, a)
    y = tl.where(x < 0, -a, a)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def atan(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _atan_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
