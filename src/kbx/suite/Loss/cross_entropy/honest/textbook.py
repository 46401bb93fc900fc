"""An honest cross_entropy as a third party writes it: an online log-sum-exp per row, then a mean kernel.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _ce_row_kernel(x_ptr, t_ptr, loss_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    m = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        alpha = tl.where(m_new == float("-inf"), 0.0, tl.exp(m - m_new))
        p = tl.where(m_new == float("-inf"), 0.0, tl.exp(x - m_new))
        s = s * alpha + p
        m = m_new
    row_max = tl.max(m, axis=0)
    scale = tl.where(m == float("-inf"), 0.0, tl.exp(m - row_max))
    lse = row_max + tl.log(tl.sum(s * scale, axis=0))
    t = tl.load(t_ptr + row)
    x_t = tl.load(x_row + t).to(tl.float32)
    tl.store(loss_ptr + row, lse - x_t)


@triton.jit
def _mean_kernel(v_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n, BLOCK_SIZE):
        idx = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(v_ptr + idx, mask=idx < n, other=0.0)
    total = tl.sum(acc, axis=0) / n
    tl.store(out_ptr, total.to(out_ptr.dtype.element_ty))


def cross_entropy(input, target):
    C = input.shape[1]
    x = input.movedim(1, -1).contiguous().view(-1, C) if input.dim() > 2 else input.contiguous()
    t = target.contiguous().view(-1)
    n_rows = x.shape[0]
    losses = torch.empty(n_rows, dtype=torch.float32, device=input.device)
    BLOCK_SIZE = min(triton.next_power_of_2(C), 4096)
    _ce_row_kernel[(n_rows,)](x, t, losses, C, BLOCK_SIZE=BLOCK_SIZE)
    out = torch.empty((), dtype=input.dtype, device=input.device)
    _mean_kernel[(1,)](losses, out, n_rows, BLOCK_SIZE=1024)
    return out
