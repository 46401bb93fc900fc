"""Label-smoothed softmax cross-entropy (mean) in Triton: one read of the logits, then a tiny mean.

Kernel 1 gives each program BLOCK_M rows and streams them in BLOCK_K-wide chunks (BLOCK_M * BLOCK_K ~ 4096, so
10-class rows are packed 256 to a program and 128k-vocabulary rows are streamed 4096 at a time). Per row it
keeps, in fp32,
    m = running max,  s = sum exp(x - m) (rescaled by exp(m_old - m_new) when the max grows),
    sx = sum (x - x0)  (x0 = the row's first logit: summing offsets from it keeps sx free of cancellation)
and after the row gathers the target logit x_t and writes
    loss = (m - x0) + log(s) - (1 - eps) (x_t - x0) - eps * sx / K
         = lse - (1 - eps) x_t - (eps / K) sum_c x_c,
every term measured from x0, so a row offset of 1000 costs no precision. Kernel 2 (one program) sums the N row
losses in a fixed order and divides by N: deterministic, unlike atomics. The (N, K) log-softmax is never
written: the logits are read exactly once.

Memory-bound: on an H100 (~3 TB/s) the 8192 x 128256 bench reads 2.1 GB in bf16 (about 0.7 ms) or 4.2 GB in
fp32 (about 1.4 ms); the unfused chain writes and re-reads the log-softmax in fp32.
"""

import torch
import triton
import triton.language as tl

TILE = 4096  # logits per program per step


@triton.jit
def _row_loss_kernel(x_ptr, t_ptr, loss_ptr, n_rows, n_cols, stride_row, eps,
                     BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    row_start = rows.to(tl.int64) * stride_row  # 64-bit: 8192 * 128256 passes 2^31
    x0 = tl.load(x_ptr + row_start, mask=row_mask, other=0.0).to(tl.float32)

    m = tl.full([BLOCK_M], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK_M], tl.float32)
    sx = tl.zeros([BLOCK_M], tl.float32)
    for start in range(0, n_cols, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)[None, :]
        mask = row_mask[:, None] & (cols < n_cols)
        x = tl.load(x_ptr + row_start[:, None] + cols, mask=mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # padding rows only: avoid -inf - -inf
        s = s * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[:, None]), axis=1)
        sx += tl.sum(tl.where(mask, x - x0[:, None], 0.0), axis=1)
        m = m_new

    t = tl.load(t_ptr + rows, mask=row_mask, other=0)
    xt = tl.load(x_ptr + row_start + t, mask=row_mask, other=0.0).to(tl.float32)
    loss = (m - x0) + tl.log(s) - (1.0 - eps) * (xt - x0) - eps * sx / n_cols
    tl.store(loss_ptr + rows, loss, mask=row_mask)


@triton.jit
def _mean_kernel(loss_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(loss_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) / n).to(out_ptr.dtype.element_ty))


def softmax_cross_entropy_label_smoothing(input, target, label_smoothing=0.1):
    x = input if input.stride(1) == 1 else input.contiguous()
    n_rows, n_cols = x.shape
    t = target.contiguous()
    losses = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    BLOCK_K = min(triton.next_power_of_2(n_cols), TILE)
    BLOCK_M = min(max(TILE // BLOCK_K, 1), triton.next_power_of_2(n_rows))
    num_warps = 8 if BLOCK_M * BLOCK_K >= 4096 else 4
    _row_loss_kernel[(triton.cdiv(n_rows, BLOCK_M),)](x, t, losses, n_rows, n_cols, x.stride(0),
                                                      float(label_smoothing),
                                                      BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, num_warps=num_warps)
    _mean_kernel[(1,)](losses, out, n_rows, BLOCK=1024)
    return out
