"""Reduces the argument correctly to [-pi, pi] but then uses the Taylor series only up to x^9.

    sin(r) ~ r - r^3/3! + r^5/5! - r^7/7! + r^9/9!

The truncation error is tiny near 0 but r^11/11! = 7e-3 at r = pi, far outside the fp32 tolerance (bf16 hides it).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _sin_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    k = tl.floor(x * 0.15915494309189535 + 0.5)
    r = tl.fma(-k, 6.283203125, x)
    r = tl.fma(-k, -1.781781975296326e-05, r)
    r2 = r * r
    y = r * (1.0 + r2 * (-1.0 / 6.0 + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0 + r2 * (1.0 / 362880.0)))))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def sin(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _sin_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
