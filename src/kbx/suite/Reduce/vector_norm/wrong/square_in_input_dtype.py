"""Squares each element in the input dtype before adding it to an fp32 accumulator.

`x = tl.load(...)` without `.to(tl.float32)`, then `acc += x * x` with `acc` fp32: Triton computes `x * x` in
fp16 and only the sum is widened. The square of an fp16 value above 256 is past fp16's largest finite value
(65504) and becomes inf, so the norm of a slice holding one is inf where the exact norm is a few thousand (and
representable). Small inputs hide it: below 256 the fp16 square only loses bits the fp16 output rounds away.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _norm_rows_kernel(x_ptr, y_ptr, n_cols, ORD: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    # ORD: 2 (euclidean), 1 (sum of magnitudes), 0 (max magnitude, ord=inf)
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0)  # the bug: stays fp16
        if ORD == 2:
            acc += x * x
        elif ORD == 1:
            acc += tl.abs(x).to(tl.float32)
        else:
            acc = tl.maximum(acc, tl.abs(x).to(tl.float32))
    if ORD == 2:
        out = tl.sqrt(tl.sum(acc, axis=0))
    elif ORD == 1:
        out = tl.sum(acc, axis=0)
    else:
        out = tl.max(acc, axis=0)
    tl.store(y_ptr + row, out.to(y_ptr.dtype.element_ty))


def vector_norm(x, ord=2, dim=None, keepdim=False):
    if isinstance(ord, str):
        ord = float(ord)
    if ord == 2:
        code = 2
    elif ord == 1:
        code = 1
    elif math.isinf(ord) and ord > 0:
        code = 0
    else:
        raise NotImplementedError(f"ord={ord}")
    nd = x.dim()
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    dims = sorted(set(d % nd for d in dims))
    kept = [d for d in range(nd) if d not in dims]
    xp = x.permute(kept + dims).contiguous()
    n_rows = 1
    for d in kept:
        n_rows *= x.shape[d]
    n_cols = 1
    for d in dims:
        n_cols *= x.shape[d]
    y = torch.empty(n_rows, dtype=x.dtype, device=x.device)
    if n_rows > 0:
        BLOCK_SIZE = min(triton.next_power_of_2(max(n_cols, 1)), 1024)
        _norm_rows_kernel[(n_rows,)](xp, y, n_cols, ORD=code, BLOCK_SIZE=BLOCK_SIZE)
    if keepdim:
        shape = [1 if d in dims else x.shape[d] for d in range(nd)]
    else:
        shape = [x.shape[d] for d in kept]
    return y.view(shape)
