"""Applies `scale` only on the negative branch, i.e. ELU with alpha' = scale * alpha: x instead of scale * x for
x > 0 (5% too small everywhere on the positive side)."""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _selu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    neg = 1.0507009873554805 * 1.6732632423543772 * (tl.exp(tl.minimum(x, 0.0)) - 1.0)
    y = tl.where(x > 0, x, neg)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def selu(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _selu_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096, num_warps=8)
    return out
