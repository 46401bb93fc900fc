"""Writes the stable form with max(x, 0) where it needs min(x, 0).

max(x, 0) - log1p(exp(-|x|)) is neither logsigmoid nor softplus and is wrong on both sides of 0: for x < 0 it
drops the x term (about 0 instead of about x), for x > 0 it adds one (about x instead of about 0).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _logsigmoid_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.maximum(x, 0.0) - tl.log(1.0 + tl.exp(-tl.abs(x)))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def logsigmoid(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _logsigmoid_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096, num_warps=8)
    return out
