"""Spreads the smoothing mass over the K - 1 non-target classes instead of all K classes.

q = (1 - eps) onehot(t) + eps / (K - 1) (1 - onehot(t)) is the label smoothing of some papers and libraries;
PyTorch's (and this task's) is q = (1 - eps) onehot(t) + eps / K, which gives the target eps / K as well. The
loss moves by eps * (x_t - mean of the others) / K per sample: small for large K, plain for K = 10 and 100.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _row_loss_kernel(x_ptr, t_ptr, loss_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    row_start = row.to(tl.int64) * n_cols
    m = float("-inf")
    s = 0.0
    sx = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row_start + cols, mask=mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
        sx += tl.sum(tl.where(mask, x, 0.0), axis=0)
    t = tl.load(t_ptr + row)
    xt = tl.load(x_ptr + row_start + t).to(tl.float32)
    lse = m + tl.log(s)
    loss = lse - (1.0 - eps) * xt - eps * (sx - xt) / (n_cols - 1)
    tl.store(loss_ptr + row, loss)


def softmax_cross_entropy_label_smoothing(input, target, label_smoothing=0.1):
    x = input.contiguous()
    n, k = x.shape
    losses = torch.empty(n, dtype=torch.float32, device=x.device)
    _row_loss_kernel[(n,)](x, target.contiguous(), losses, k, float(label_smoothing), BLOCK=1024)
    total = torch.empty(1, dtype=torch.float32, device=x.device)
    _total_kernel[(1,)](losses, total, n, n, BLOCK=1024)
    return total[0].to(x.dtype)


@triton.jit
def _total_kernel(loss_ptr, out_ptr, n, divisor, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(loss_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) / divisor)
