"""An honest cumsum as a third party writes it: carry initialised with `tl.zeros([1]).sum(axis=0)`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def _cumsum_kernel(x_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    carry = tl.zeros([1], tl.float32).sum(axis=0)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        s = tl.associative_scan(x, 0, _add) + carry
        tl.store(y_row + cols, s.to(y_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x, axis=0)


def cumsum(input, dim):
    x = input.movedim(dim, -1).contiguous()
    shape = x.shape
    n_cols = shape[-1] if x.dim() > 0 else 1
    x2 = x.reshape(-1, n_cols)
    y2 = torch.empty_like(x2)
    if x2.numel() == 0:
        return torch.empty_like(input)
    BLOCK_SIZE = min(triton.next_power_of_2(n_cols), 1024)
    _cumsum_kernel[(x2.shape[0],)](x2, y2, n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y2.view(shape).movedim(-1, dim)
