"""Computes sign(x) as x / |x|.

Right for every nonzero finite x, but 0 / 0 is NaN where sign(0) = 0, inf / inf is NaN where sign(+-inf) = +-1, and
NaN stays NaN where PyTorch gives 0.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _sign_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = x / tl.abs(x)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def sign(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _sign_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
