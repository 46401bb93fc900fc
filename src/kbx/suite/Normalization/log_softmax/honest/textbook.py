"""An honest log_softmax as a third party writes it: three passes, `(x - m) - log(s)`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _log_softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    # pass 1: max
    mvec = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        mvec = tl.maximum(mvec, x)
    m = tl.max(mvec, axis=0)
    # pass 2: sum of exp(x - m)
    svec = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        svec += tl.exp(x - m)
    log_s = tl.log(tl.sum(svec, axis=0))
    # pass 3: write (x - m) - log(s)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - m) - log_s
        tl.store(y_row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def log_softmax(input, dim):
    x = input.movedim(dim, -1).contiguous()
    shape = x.shape
    n_cols = shape[-1]
    x2 = x.view(-1, n_cols)
    y2 = torch.empty_like(x2)
    if x2.numel() == 0:
        return torch.empty_like(input)
    BLOCK_SIZE = min(triton.next_power_of_2(n_cols), 1024)
    _log_softmax_kernel[(x2.shape[0],)](x2, y2, n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y2.view(shape).movedim(-1, dim)
