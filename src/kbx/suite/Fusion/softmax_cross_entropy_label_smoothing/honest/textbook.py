"""An honest softmax_cross_entropy_label_smoothing as a third party writes it: an online log-sum-exp and a row sum.

Each program takes ROWS rows and streams them in BLOCK-wide chunks (a ROWS x BLOCK tile of at most 4096 logits,
so short rows share a program), keeping a running max and a rescaled exp-sum per lane and a plain sum of the
logits; the lanes are combined once per row at the end. A second kernel averages the row losses.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _ce_ls_row_kernel(x_ptr, t_ptr, loss_ptr, n_rows, n_cols, stride_row, stride_col, eps,
                      ROWS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = row < n_rows
    row = row.to(tl.int64)
    x_row = (x_ptr + row * stride_row)[:, None]
    ok = row_ok[:, None]
    lanes = tl.arange(0, BLOCK_SIZE)[None, :]
    m = tl.full([ROWS, BLOCK_SIZE], float("-inf"), tl.float32)
    s = tl.zeros([ROWS, BLOCK_SIZE], tl.float32)
    xsum = tl.zeros([ROWS, BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + lanes
        mask = ok & (cols < n_cols)
        x = tl.load(x_row + cols * stride_col, mask=mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        alpha = tl.where(m_new == float("-inf"), 0.0, tl.exp(m - m_new))
        p = tl.where(m_new == float("-inf"), 0.0, tl.exp(x - m_new))
        s = s * alpha + p
        m = m_new
        xsum += tl.where(mask, x, 0.0)
    row_max = tl.max(m, axis=1)
    scale = tl.where(m == float("-inf"), 0.0, tl.exp(m - row_max[:, None]))
    lse = row_max + tl.log(tl.sum(s * scale, axis=1))
    t = tl.load(t_ptr + row, mask=row_ok, other=0)
    x_t = tl.load(x_ptr + row * stride_row + t * stride_col, mask=row_ok, other=0.0).to(tl.float32)
    mean_x = tl.sum(xsum, axis=1) / n_cols
    loss = (1.0 - eps) * (lse - x_t) + eps * (lse - mean_x)
    tl.store(loss_ptr + row, loss, mask=row_ok)


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
    ROWS = min(4096 // BLOCK_SIZE, triton.next_power_of_2(max(N, 1)))
    _ce_ls_row_kernel[(triton.cdiv(N, ROWS),)](input, t, losses, N, K, input.stride(0), input.stride(1),
                                               float(label_smoothing), ROWS=ROWS, BLOCK_SIZE=BLOCK_SIZE)
    out = torch.empty((), dtype=input.dtype, device=input.device)
    _mean_kernel[(1,)](losses, out, N, BLOCK_SIZE=1024)
    return out
