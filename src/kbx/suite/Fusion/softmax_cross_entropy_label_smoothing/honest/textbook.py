"""An honest softmax_cross_entropy_label_smoothing as a third party writes it: an online log-sum-exp and a row sum.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _ce_ls_row_kernel(x_ptr, t_ptr, loss_ptr, n_cols, stride_row, stride_col, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_row
    m = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK_SIZE], tl.float32)
    xsum = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols * stride_col, mask=mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        alpha = tl.where(m_new == float("-inf"), 0.0, tl.exp(m - m_new))
        p = tl.where(m_new == float("-inf"), 0.0, tl.exp(x - m_new))
        s = s * alpha + p
        m = m_new
        xsum += tl.where(mask, x, 0.0)
    row_max = tl.max(m, axis=0)
    scale = tl.where(m == float("-inf"), 0.0, tl.exp(m - row_max))
    lse = row_max + tl.log(tl.sum(s * scale, axis=0))
    t = tl.load(t_ptr + row)
    x_t = tl.load(x_row + t * stride_col).to(tl.float32)
    mean_x = tl.sum(xsum, axis=0) / n_cols
    loss = (1.0 - eps) * (lse - x_t) + eps * (lse - mean_x)
    tl.store(loss_ptr + row, loss)


@triton.jit
def _mean_kernel(v_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n, BLOCK_SIZE):
        idx = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(v_ptr + idx, mask=idx < n, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) / n).to(out_ptr.dtype.element_ty))


def softmax_cross_entropy_label_smoothing(input, target, label_smoothing=0.1):
    N, K = input.shape
    t = target.contiguous()
    losses = torch.empty(N, dtype=torch.float32, device=input.device)
    BLOCK_SIZE = min(triton.next_power_of_2(K), 4096)
    _ce_ls_row_kernel[(N,)](input, t, losses, K, input.stride(0), input.stride(1), float(label_smoothing),
                            BLOCK_SIZE=BLOCK_SIZE)
    out = torch.empty((), dtype=input.dtype, device=input.device)
    _mean_kernel[(1,)](losses, out, N, BLOCK_SIZE=1024)
    return out
