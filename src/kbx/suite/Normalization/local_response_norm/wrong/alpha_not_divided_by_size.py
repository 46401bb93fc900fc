"""Uses div = k + alpha * sum of squares, leaving out the 1/size factor.

Both conventions exist in the literature (Krizhevsky et al. write alpha * sum; Caffe and PyTorch scale alpha
by 1/size), so a kernel written from the paper is off by a factor `size` inside the power: ~4x the effect of
the normalization for size 5.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(x_ptr, y_ptr, C, S, alpha, beta, k, SIZE: tl.constexpr, BLOCK: tl.constexpr):
    plane = tl.program_id(0)  # = n * C + c
    c = plane % C
    s = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = s < S
    sq = tl.zeros((BLOCK,), dtype=tl.float32)
    count = tl.zeros([BLOCK], tl.float32)
    for j in tl.static_range(SIZE):
        cj = tl.zeros([BLOCK], tl.int32) + c + (j - SIZE // 2)
        ok = (cj >= 0) & (cj < C)
        v = tl.load(x_ptr + (plane + (cj - c)).to(tl.int64) * S + s, mask=mask & ok, other=0.0).to(tl.float32)
        sq += v * v
        count += tl.where(ok, 1.0, 0.0)
    div = k + alpha * sq
    x = tl.load(x_ptr + plane.to(tl.int64) * S + s, mask=mask, other=0.0).to(tl.float32)
    y = x * tl.exp2(-beta * tl.log2(div))
    tl.store(y_ptr + plane.to(tl.int64) * S + s, y.to(y_ptr.dtype.element_ty), mask=mask)


def local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0):
    x = input.contiguous()
    out = torch.empty_like(x)
    C = x.shape[1]
    S = math.prod(x.shape[2:])
    _kernel[(x.shape[0] * C, triton.cdiv(S, 256))](x, out, C, S, alpha, beta, k, SIZE=size, BLOCK=256)
    return out
