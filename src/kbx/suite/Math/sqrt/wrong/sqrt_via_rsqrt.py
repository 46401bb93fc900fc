"""Computes sqrt(x) as x * rsqrt(x), a common trick to share one reciprocal square root.

It is accurate for positive finite x, but at x = 0 it evaluates 0 * inf = NaN where sqrt(0) = 0 (status NONFINITE),
and at +inf it gives inf * 0 = NaN instead of +inf.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _sqrt_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = x * tl.rsqrt(x)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def sqrt(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _sqrt_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
