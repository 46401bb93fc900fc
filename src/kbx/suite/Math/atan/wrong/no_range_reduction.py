"""Sums the Taylor series of atan (ten terms) directly, with no range reduction.

The series converges only for |x| <= 1 and is accurate only well inside it, so |x| around 1 is already off and
larger inputs diverge: for |x| > ~85, x^19 overflows and the result is +-inf where atan is within pi/2 (status
NONFINITE).
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _atan_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    u2 = x * x
    p = -1.0 / 19.0
    p = 1.0 / 17.0 + u2 * p
    p = -1.0 / 15.0 + u2 * p
    p = 1.0 / 13.0 + u2 * p
    p = -1.0 / 11.0 + u2 * p
    p = 1.0 / 9.0 + u2 * p
    p = -1.0 / 7.0 + u2 * p
    p = 1.0 / 5.0 + u2 * p
    p = -1.0 / 3.0 + u2 * p
    y = x + x * (u2 * p)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def atan(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _atan_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
