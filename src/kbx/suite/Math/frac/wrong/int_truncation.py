"""Truncates by converting to int32 and back: frac(x) = x - float(int(x)).

The conversion rounds toward zero, so every moderate input is right, negative ones included; but |x| >= 2^31 does
not fit in int32 (such floats are integers, so frac must be 0), and +-inf must give NaN.
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
    y = x - x.to(tl.int32).to(tl.float32)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def frac(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _frac_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
