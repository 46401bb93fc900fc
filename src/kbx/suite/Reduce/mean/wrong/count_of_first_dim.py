"""Divides the sum by the size of the first reduced dim only, instead of the product of all reduced sizes.

Right whenever one dim is reduced (dim=-1, dim=0), so single-dim tests pass; with dim=(1, 2) or dim=None the
divisor is one factor of n and the result is too large by the other factors.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _row_sum_kernel(x_ptr, out_ptr, R, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, R, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * R + cols, mask=cols < R, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, (tl.sum(acc, axis=0) * scale).to(out_ptr.dtype.element_ty))


def mean(input, dim=None, keepdim=False):
    nd = input.dim()
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        reduced = list(range(nd))
    else:
        reduced = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    kept = [d for d in range(nd) if d not in reduced]
    R = math.prod(input.shape[d] for d in reduced)
    x = input.permute(kept + reduced).contiguous()
    out = torch.empty([input.shape[d] for d in kept], dtype=input.dtype, device=input.device)
    count = input.shape[reduced[0]]  # the mistake: only the first reduced dim's size
    BLOCK = min(triton.next_power_of_2(R), 1024)
    _row_sum_kernel[(max(out.numel(), 1),)](x, out, R, 1.0 / count, BLOCK=BLOCK)
    if keepdim:
        return out.reshape([1 if d in reduced else input.shape[d] for d in range(nd)])
    return out
