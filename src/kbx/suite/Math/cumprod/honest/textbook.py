"""An honest cumprod as a third party writes it: dim moved last, blockwise tl.associative_scan, an fp32 block carry.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def _cumprod_rows_kernel(x_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    carry = tl.full([], 1.0, tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=1.0).to(tl.float32)
        scanned = tl.associative_scan(x, 0, _mul_combine) * carry
        tl.store(y_row + cols, scanned.to(y_ptr.dtype.element_ty), mask=mask)
        carry = tl.reduce(tl.where(cols == start + BLOCK_SIZE - 1, scanned, 1.0), 0, _mul_combine)


def cumprod(input, dim):
    nd = input.dim()
    if nd == 0:
        return input.clone()
    d = dim % nd
    x = input.movedim(d, -1).contiguous()
    n_cols = x.shape[-1]
    n_rows = x.numel() // max(n_cols, 1) if n_cols > 0 else 0
    y = torch.empty_like(x)
    if n_rows > 0:
        BLOCK_SIZE = min(triton.next_power_of_2(max(n_cols, 1)), 1024)
        _cumprod_rows_kernel[(n_rows,)](x, y, n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y.movedim(-1, d)
