"""An honest count_nonzero written with 2-D tiles: BLOCK_M rows per program, each swept BLOCK_N columns at a time.

The reduced dims are permuted to the end and the input copied once into a [rows, reduced] matrix. Each element is
tested by value, `x != 0` (so -0.0 is zero and NaN counts), and the int32 lane counts are added into an int64 row
total.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _count_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows[:, None] < n_rows
    base = x_ptr + rows[:, None].to(tl.int64) * n_cols
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.int32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)[None, :]
        x = tl.load(base + cols, mask=row_ok & (cols < n_cols), other=0)
        acc += (x != 0).to(tl.int32)
    tl.store(y_ptr + rows, tl.sum(acc.to(tl.int64), axis=1), mask=rows < n_rows)


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


def count_nonzero(input, dim=None):
    rows, dims, kept = _rows(input, dim)
    n_rows, n_cols = rows.shape
    y = torch.empty(n_rows, dtype=torch.int64, device=input.device)
    BLOCK_N = min(triton.next_power_of_2(n_cols), 512)
    BLOCK_M = 4
    _count_kernel[(triton.cdiv(n_rows, BLOCK_M),)](rows, y, n_rows, n_cols, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y.view(_out_shape(input, dims, kept, False))
