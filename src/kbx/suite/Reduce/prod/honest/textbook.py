"""An honest prod as a third party writes it: dim moved last, per-lane fp32 running products, a tl.reduce multiply.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def _prod_rows_kernel(x_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    acc = tl.full([BLOCK_SIZE], 1.0, tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        acc *= tl.load(x_row + cols, mask=cols < n_cols, other=1.0).to(tl.float32)
    total = tl.reduce(acc, 0, _mul_combine)
    tl.store(y_ptr + row, total.to(y_ptr.dtype.element_ty))


def prod(input, dim, keepdim=False):
    nd = input.dim()
    if nd == 0:
        x = input.reshape(1, 1).contiguous()
        y = torch.empty(1, dtype=input.dtype, device=input.device)
        _prod_rows_kernel[(1,)](x, y, 1, BLOCK_SIZE=1)
        return y.view([])
    d = dim % nd
    x = input.movedim(d, -1).contiguous()
    n_cols = input.shape[d]
    n_rows = x.numel() // max(n_cols, 1) if n_cols > 0 else 0
    y = torch.empty(n_rows, dtype=input.dtype, device=input.device)
    if n_rows > 0:
        BLOCK_SIZE = min(triton.next_power_of_2(max(n_cols, 1)), 1024)
        _prod_rows_kernel[(n_rows,)](x, y, n_cols, BLOCK_SIZE=BLOCK_SIZE)
    shape = list(input.shape)
    if keepdim:
        shape[d] = 1
    else:
        del shape[d]
    return y.view(shape)
