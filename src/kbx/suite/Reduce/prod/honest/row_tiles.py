"""An honest prod written with 2-D tiles: BLOCK_M rows per program, each swept BLOCK_N columns at a time.

The reduced dim is moved to the end and the input copied once. Each lane keeps an fp32 running product (masked
lanes read 1, the product's identity; zeros and signs need no special case), and the lanes are multiplied
together at the end with `tl.reduce`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def _prod_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows[:, None] < n_rows
    base = x_ptr + rows[:, None].to(tl.int64) * n_cols
    acc = tl.full([BLOCK_M, BLOCK_N], 1.0, tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)[None, :]
        acc *= tl.load(base + cols, mask=row_ok & (cols < n_cols), other=1.0).to(tl.float32)
    tl.store(y_ptr + rows, tl.reduce(acc, 1, _mul).to(y_ptr.dtype.element_ty), mask=rows < n_rows)


def prod(input, dim, keepdim=False):
    d = dim % input.dim()
    moved = input.movedim(d, -1)
    rows = moved.reshape(-1, input.shape[d]).contiguous()
    n_rows, n_cols = rows.shape
    y = torch.empty(n_rows, dtype=input.dtype, device=input.device)
    BLOCK_N = min(triton.next_power_of_2(n_cols), 128)
    BLOCK_M = 8
    _prod_kernel[(triton.cdiv(n_rows, BLOCK_M),)](rows, y, n_rows, n_cols, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    out_shape = list(moved.shape[:-1])
    if keepdim:
        out_shape.insert(d, 1)
    return y.view(out_shape)
