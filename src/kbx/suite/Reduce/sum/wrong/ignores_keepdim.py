"""Always drops the reduced dims, even when keepdim=True.

The values are right (the reduced dims are permuted to the end, made contiguous and summed row by row in fp32),
but with keepdim=True PyTorch keeps each reduced dim with size 1, so the shape differs.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_SHAPE"


@triton.jit
def _row_sum_kernel(x_ptr, out_ptr, L, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, L, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * L + cols, mask=cols < L, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def sum(input, dim, keepdim=False):
    nd = input.dim()
    reduced = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    kept = [d for d in range(nd) if d not in reduced]
    length = math.prod(input.shape[d] for d in reduced)
    x = input.permute(kept + reduced).contiguous()
    out = torch.empty([input.shape[d] for d in kept], dtype=input.dtype, device=input.device)
    _row_sum_kernel[(out.numel(),)](x, out, length, BLOCK=1024)
    return out
