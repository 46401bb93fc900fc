"""An honest vector_norm written with 2-D tiles: BLOCK_M rows per program, each swept BLOCK_N columns at a time.

The reduced dims are permuted to the end and the input copied once into a [rows, reduced] matrix. Every element
is widened to fp32 as it is loaded; each lane keeps a running sum of x^2 (ord 2), of |x| (ord 1) or a running max
of |x| (ord inf), and the lanes are folded at the end (then a square root for ord 2).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

import torch
import triton
import triton.language as tl


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
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
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
