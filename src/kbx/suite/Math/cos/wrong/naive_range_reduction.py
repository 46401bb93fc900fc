"""Reduces the argument with a single fp32 constant: r = x - k * 6.2831855, then cos(r).

This is the textbook reduction and looks right, but for |x| in the hundreds k * 6.2831855 is rounded to fp32 (half
an ulp of ~400 is 1.5e-5) and the constant itself is 1.7e-7 off 2 pi, an error multiplied by k. Together they reach
~2.4e-5 absolute, beyond the fp32 tolerance, on about 6% of the uniformly spread inputs.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _cos_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    k = tl.floor(x * 0.15915494309189535 + 0.5)
    y = tl.cos(x - k * 6.2831855)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def cos(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _cos_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
