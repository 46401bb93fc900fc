"""Ignores `ord` and always computes the Euclidean norm (the default, ord=2).

A kernel written for the common case and never wired to the parameter: right for ord=2 only. The workloads also
ask for ord=1 (the sum of magnitudes, larger than the 2-norm) and ord=inf (the largest magnitude, smaller).
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _row_norm_kernel(x_ptr, out_ptr, R, ORD: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    if ORD == 0:
        acc = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    else:
        acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, R, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        if ORD == 0:
            v = tl.load(x_ptr + row * R + cols, mask=cols < R, other=float("-inf")).to(tl.float32)
            acc = tl.maximum(acc, tl.abs(v))
        else:
            v = tl.load(x_ptr + row * R + cols, mask=cols < R, other=0.0).to(tl.float32)
            acc += v * v if ORD == 2 else tl.abs(v)
    if ORD == 0:
        total = tl.max(acc, axis=0)
    else:
        total = tl.sum(acc, axis=0)
    if ORD == 2:
        total = tl.sqrt(total)
    tl.store(out_ptr + row, total.to(out_ptr.dtype.element_ty))


def vector_norm(x, ord=2, dim=None, keepdim=False):
    nd = x.dim()
    if dim is None:
        reduced = list(range(nd))
    else:
        reduced = sorted({d % nd for d in ([dim] if isinstance(dim, int) else dim)})
    kept = [d for d in range(nd) if d not in reduced]
    R = math.prod(x.shape[d] for d in reduced)
    xc = x.permute(kept + reduced).contiguous()
    out = torch.empty([x.shape[d] for d in kept], dtype=x.dtype, device=x.device)
    ord_code = 2  # the mistake: ord is ignored
    _row_norm_kernel[(max(out.numel(), 1),)](xc, out, R, ORD=ord_code, BLOCK=min(triton.next_power_of_2(R), 1024))
    if keepdim:
        return out.reshape([1 if d in reduced else x.shape[d] for d in range(nd)])
    return out
