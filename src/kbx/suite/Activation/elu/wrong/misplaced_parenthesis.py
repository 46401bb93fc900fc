"""Writes the negative branch as alpha * exp(x) - 1 instead of alpha * (exp(x) - 1).

Identical for the default alpha = 1.0; for any other alpha the negative side is shifted (it saturates to -1
instead of -alpha and jumps at 0: alpha - 1 instead of 0).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _elu_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.where(x > 0, x, alpha * tl.exp(tl.minimum(x, 0.0)) - 1.0)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def elu(input, alpha=1.0):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _elu_kernel[(triton.cdiv(n, 4096),)](x, out, n, float(alpha), BLOCK=4096, num_warps=8)
    return out
