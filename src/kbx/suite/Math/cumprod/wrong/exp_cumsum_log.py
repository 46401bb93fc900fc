"""Computes the running product through logarithms: cumprod(x) = exp(cumsum(log(x))), a common trick.

The scan (chunked, carried, fp32) is right, and for positive inputs the result is within rounding. But log of a
negative number is NaN, so every element from the first negative value to the end of its row is NaN where the
product is an ordinary number. (Zeros happen to come out right: log(0) = -inf and exp(-inf) = 0.)
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _cumprod_rows_kernel(x_ptr, out_ptr, L, BLOCK_L: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    carry = tl.zeros([1], dtype=tl.float32)
    for l0 in range(0, L, BLOCK_L):
        l = l0 + tl.arange(0, BLOCK_L)
        mask = l < L
        logx = tl.log(tl.load(x_ptr + row * L + l, mask=mask, other=1.0).to(tl.float32))
        y = tl.exp(tl.cumsum(logx, axis=0) + carry)
        tl.store(out_ptr + row * L + l, y.to(out_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(logx, axis=0)


def cumprod(input, dim):
    # Scan the last dim of a copy with `dim` moved last, then move it back.
    x = input.movedim(dim, -1).contiguous()
    L = x.shape[-1] if x.dim() else 1
    out = torch.empty_like(x)
    n_rows = x.numel() // max(L, 1)
    _cumprod_rows_kernel[(n_rows,)](x, out, L, BLOCK_L=1024)
    return out.movedim(-1, dim)
