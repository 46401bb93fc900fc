"""An honest softmin as a third party writes it: a three-pass softmax of -x.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _softmin_kernel(x_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    # softmin(x) = softmax(-x): two passes over z = -x, max of z then sum of exp(z - max)
    mvec = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        z = -tl.load(x_row + cols, mask=cols < n_cols, other=float("inf")).to(tl.float32)
        mvec = tl.maximum(mvec, z)
    m = tl.max(mvec, axis=0)
    svec = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        z = -tl.load(x_row + cols, mask=cols < n_cols, other=float("inf")).to(tl.float32)
        svec += tl.exp(z - m)
    s = tl.sum(svec, axis=0)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        z = -tl.load(x_row + cols, mask=mask, other=float("inf")).to(tl.float32)
        tl.store(y_row + cols, (tl.exp(z - m) / s).to(y_ptr.dtype.element_ty), mask=mask)


def softmin(input, dim):
    x = input.movedim(dim, -1).contiguous()
    shape = x.shape
    n_cols = shape[-1]
    x2 = x.view(-1, n_cols)
    y2 = torch.empty_like(x2)
    if x2.numel() == 0:
        return torch.empty_like(input)
    BLOCK_SIZE = min(triton.next_power_of_2(n_cols), 1024)
    _softmin_kernel[(x2.shape[0],)](x2, y2, n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y2.view(shape).movedim(-1, dim)
