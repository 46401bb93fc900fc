"""Compares x, not beta * x, with the threshold.

Indistinguishable for beta = 1 or a large threshold, but with beta = 0.5 and threshold = 2 it returns x for
every x in (2, 4], where softplus is still on its curved branch (softplus(3) = 3.40 there, not 3).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _softplus_kernel(x_ptr, y_ptr, n, beta, threshold, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    z = x * beta
    soft = (tl.maximum(z, 0.0) + tl.log(1.0 + tl.exp(-tl.abs(z)))) / beta
    y = tl.where(x > threshold, x, soft)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def softplus(input, beta=1.0, threshold=20.0):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _softplus_kernel[(triton.cdiv(n, 4096),)](x, out, n, float(beta), float(threshold), BLOCK=4096, num_warps=8)
    return out
