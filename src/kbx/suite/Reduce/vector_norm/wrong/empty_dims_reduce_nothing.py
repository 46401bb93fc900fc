"""Treats an empty `dim` list as "reduce nothing": every element becomes its own norm.

torch.linalg.vector_norm reduces every dim when `dim` is an empty tuple or list, as with None. A wrapper that tests
only `dim is None` turns () into an empty list of reduced dims and returns |x| in the input's shape. This task's own
honest textbook kernel had exactly this slip until `check_empty_dims` was added; every other workload names its
dims or passes None.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_SHAPE"


@triton.jit
def _norm_kernel(x_ptr, y_ptr, n_rows, n_cols, ORD: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows[:, None] < n_rows
    base = x_ptr + rows[:, None].to(tl.int64) * n_cols
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)[None, :]
        a = tl.abs(tl.load(base + cols, mask=row_ok & (cols < n_cols), other=0.0).to(tl.float32))
        if ORD == 2:
            acc += a * a
        elif ORD == 1:
            acc += a
        else:
            acc = tl.maximum(acc, a)  # |x| >= 0, so the 0 start and the 0 padding are harmless
    if ORD == 2:
        out = tl.sqrt(tl.sum(acc, axis=1))
    elif ORD == 1:
        out = tl.sum(acc, axis=1)
    else:
        out = tl.max(acc, axis=1)
    tl.store(y_ptr + rows, out.to(y_ptr.dtype.element_ty), mask=rows < n_rows)


def _rows(x, dim):
    """View x as [kept elements, reduced elements]: kept dims first, reduced dims last, then one copy."""
    nd = x.dim()
    if dim is None:  # the bug: () and [] fall through to the list case, reducing nothing
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim % nd]
    else:
        dims = sorted({d % nd for d in dim})
    kept = [d for d in range(nd) if d not in dims]
    n_rows = math.prod(x.shape[d] for d in kept)
    n_cols = math.prod(x.shape[d] for d in dims)
    rows = x.permute(kept + dims).reshape(n_rows, n_cols).contiguous()
    return rows, dims, kept


def _out_shape(x, dims, kept, keepdim):
    return [1 if d in dims else x.shape[d] for d in range(x.dim())] if keepdim else [x.shape[d] for d in kept]


def vector_norm(x, ord=2, dim=None, keepdim=False):
    code = {2.0: 2, 1.0: 1, math.inf: 0}[float(ord)]
    rows, dims, kept = _rows(x, dim)
    n_rows, n_cols = rows.shape
    y = torch.empty(n_rows, dtype=x.dtype, device=x.device)
    BLOCK_N = min(triton.next_power_of_2(n_cols), 256)
    BLOCK_M = 16
    _norm_kernel[(triton.cdiv(n_rows, BLOCK_M),)](rows, y, n_rows, n_cols, ORD=code, BLOCK_M=BLOCK_M,
                                                   BLOCK_N=BLOCK_N)
    return y.view(_out_shape(x, dims, kept, keepdim))
