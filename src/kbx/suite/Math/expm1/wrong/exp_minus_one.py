"""Computes expm1(x) as exp(x) - 1.

Right for large |x| and at the special values, but exp(x) lies within an ulp of 1 for small x: every |x| below 6e-8
gives 0, and |x| around 1e-5 keeps only two or three correct digits, far outside the relative tolerance the task
applies to small results.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _expm1_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.exp(x) - 1.0
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def expm1(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _expm1_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
