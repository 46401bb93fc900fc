"""An honest argmax as a third party writes it: per-lane running max and first index, then the smallest tied index.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _argmax_rows_kernel(x_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    best = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    best_idx = tl.zeros([BLOCK_SIZE], tl.int64)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        take = x > best
        best = tl.where(take, x, best)
        best_idx = tl.where(take, cols.to(tl.int64), best_idx)
    row_max = tl.max(best, axis=0)
    cand = tl.where(best == row_max, best_idx, n_cols)
    tl.store(y_ptr + row, tl.min(cand, axis=0))


def argmax(input, dim, keepdim=False):
    nd = input.dim()
    d = dim % nd
    x = input.movedim(d, -1).contiguous()
    n_cols = input.shape[d]
    n_rows = x.numel() // max(n_cols, 1)
    y = torch.empty(n_rows, dtype=torch.int64, device=input.device)
    if n_rows > 0:
        BLOCK_SIZE = min(triton.next_power_of_2(max(n_cols, 1)), 1024)
        _argmax_rows_kernel[(n_rows,)](x, y, n_cols, BLOCK_SIZE=BLOCK_SIZE)
    shape = list(input.shape)
    if keepdim:
        shape[d] = 1
    else:
        del shape[d]
    return y.view(shape)
