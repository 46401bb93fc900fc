"""An honest cumprod that scans down columns: the scanned dim moved first, each program walking its columns.

The input is copied once into a [L, columns] matrix (L the scanned length). A program owns BLOCK_C adjacent
columns and walks down them BLOCK_L rows at a time: `tl.associative_scan` along axis 0 of the [BLOCK_L, BLOCK_C]
tile, times the fp32 running product of the rows above (the carry, the tile's last row), rounded once to the
output dtype. Loads are coalesced across columns whatever dim is scanned.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def _cumprod_columns_kernel(x_ptr, y_ptr, length, n_cols, BLOCK_L: tl.constexpr, BLOCK_C: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    carry = tl.full([BLOCK_C], 1.0, tl.float32)
    for start in range(0, length, BLOCK_L):
        rows = start + tl.arange(0, BLOCK_L)
        offs = rows[:, None].to(tl.int64) * n_cols + cols[None, :]
        mask = (rows[:, None] < length) & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
        scanned = tl.associative_scan(x, 0, _mul) * carry[None, :]
        tl.store(y_ptr + offs, scanned.to(y_ptr.dtype.element_ty), mask=mask)
        # Padded rows read 1, so the tile's last row is the product of everything so far.
        carry = tl.reduce(tl.where(rows[:, None] == start + BLOCK_L - 1, scanned, 1.0), 0, _mul)


def cumprod(input, dim):
    moved = input.movedim(dim, 0)
    x = moved.reshape(moved.shape[0], -1).contiguous()
    length, n_cols = x.shape
    y = torch.empty_like(x)
    if x.numel() > 0:
        BLOCK_C = min(triton.next_power_of_2(n_cols), 32)
        BLOCK_L = max(min(triton.next_power_of_2(length), 4096 // BLOCK_C), 1)
        _cumprod_columns_kernel[(triton.cdiv(n_cols, BLOCK_C),)](x, y, length, n_cols, BLOCK_L=BLOCK_L,
                                                                 BLOCK_C=BLOCK_C)
    return y.view(moved.shape).movedim(0, dim)
