"""An honest count_nonzero as a third party writes it: one program per output, an int64 count of x != 0.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _count_rows_kernel(x_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    acc = tl.zeros([BLOCK_SIZE], tl.int64)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0)
        acc += (x != 0).to(tl.int64)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


def count_nonzero(input, dim=None):
    nd = input.dim()
    if dim is None:
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim) or list(range(nd))  # an empty list reduces every dim, as None does
    dims = sorted(set(d % nd for d in dims))
    kept = [d for d in range(nd) if d not in dims]
    src = input.view(torch.uint8) if input.dtype == torch.bool else input
    x = src.permute(kept + dims).contiguous()
    n_rows = 1
    for d in kept:
        n_rows *= input.shape[d]
    n_cols = 1
    for d in dims:
        n_cols *= input.shape[d]
    y = torch.empty(n_rows, dtype=torch.int64, device=input.device)
    if n_rows > 0:
        BLOCK_SIZE = min(triton.next_power_of_2(max(n_cols, 1)), 1024)
        _count_rows_kernel[(n_rows,)](x, y, n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y.view([input.shape[d] for d in kept])
