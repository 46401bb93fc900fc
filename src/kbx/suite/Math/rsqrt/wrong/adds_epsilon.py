"""Computes rsqrt(x + 1e-12), the guarded form copied from a normalisation kernel.

The epsilon keeps the result finite at zero, but rsqrt(0) must be +inf (the kernel returns 1e6), and every input
below about 1e-7 comes out visibly wrong: the epsilon is no longer negligible next to x.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _rsqrt_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.rsqrt(x + 1e-12)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def rsqrt(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _rsqrt_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
