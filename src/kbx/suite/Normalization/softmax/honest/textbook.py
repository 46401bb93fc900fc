"""An honest softmax as a third party writes it: online: a running max and sum, -inf guarded.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    # online pass: running max and running sum of exp(x - max)
    m = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        # lanes that have only seen -inf keep a zero sum (avoid exp(-inf - -inf) = NaN)
        alpha = tl.where(m_new == float("-inf"), 0.0, tl.exp(m - m_new))
        p = tl.where(m_new == float("-inf"), 0.0, tl.exp(x - m_new))
        s = s * alpha + p
        m = m_new
    row_max = tl.max(m, axis=0)
    scale = tl.where(m == float("-inf"), 0.0, tl.exp(m - row_max))
    row_sum = tl.sum(s * scale, axis=0)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=float("-inf")).to(tl.float32)
        y = tl.exp(x - row_max) / row_sum
        tl.store(y_row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def softmax(input, dim):
    x = input.movedim(dim, -1).contiguous()
    shape = x.shape
    n_cols = shape[-1]
    x2 = x.view(-1, n_cols)
    y2 = torch.empty_like(x2)
    n_rows = x2.shape[0]
    if x2.numel() == 0:
        return torch.empty_like(input)
    BLOCK_SIZE = min(triton.next_power_of_2(n_cols), 1024)
    _softmax_kernel[(n_rows,)](x2, y2, n_cols, BLOCK_SIZE=BLOCK_SIZE)
    return y2.view(shape).movedim(-1, dim)
