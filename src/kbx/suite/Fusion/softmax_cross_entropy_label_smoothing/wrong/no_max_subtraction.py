"""Sums exp(x) directly, without subtracting the running row maximum.

Algebraically lse = log sum exp(x); numerically exp overflows to inf in fp32 as soon as a logit passes ~88, and
these rows carry offsets up to +-1000, so the loss becomes inf or NaN (or -inf where every exp underflows to
0) instead of a finite number.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


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
        s += tl.sum(tl.exp(x), axis=0)
        m = 0.0
        sx += tl.sum(tl.where(mask, x, 0.0), axis=0)
    t = tl.load(t_ptr + row)
    xt = tl.load(x_ptr + row_start + t).to(tl.float32)
    lse = m + tl.log(s)
    loss = lse - (1.0 - eps) * xt - eps * sx / n_cols
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
