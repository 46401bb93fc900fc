"""An honest argmin as a third party writes it: per-lane running min and first index, then the smallest tied index.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _argmin_rows_kernel(x_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    best = tl.full([BLOCK_SIZE], float("inf"), tl.float32)
    best_idx = tl.zeros([BLOCK_SIZE], tl.int64)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("inf")).to(tl.float32)
        take = x < best
        best = tl.where(take, x, best)
        best_idx = tl.where(take, cols.to(tl.int64), best_idx)
    row_min = tl.min(best, axis=0)
    cand = tl.where(best == row_min, best_idx, n_cols)
    tl.store(y_ptr + row, tl.min(cand, axis=0))


def argmin(input, dim=None, keepdim=False):
    nd = input.dim()
    if dim is None:
        x = input.contiguous().view(1, -1)
        n_rows, n_cols = 1, x.shape[1]
        shape = [1] * nd if keepdim else []
    else:
        d = dim % nd
        x = input.movedim(d, -1).contiguous()
        n_cols = input.shape[d]
        n_rows = x.numel() // max(n_cols, 1)
        shape = list(input.shape)
        if keepdim:
            shape[d] = 1
        else:
            del shape[d]
    y = torch.empty(n_rows, dtype=torch.int64, device=input.device)
    if n_rows > 0:
        BLOCK_SIZE = min(triton.next_power_of_2(max(n_cols, 1)), 1024)
        _argmin_rows_kernel[(n_rows,)](x, y, n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y.view(shape)
