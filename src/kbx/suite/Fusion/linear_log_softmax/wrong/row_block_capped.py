"""Unfused, with each row's log-softmax computed in a single block of at most 8192 columns: longer rows are cut.

The GEMM is right; the log-softmax kernel loads its row into one block of min(next_power_of_2(N), 8192) lanes,
with no loop over the rest of the row. Every row of up to 8192 outputs is right; on a real vocabulary (32000,
the 32768 of the bench) the logsumexp misses every logit past 8192 and the outputs past 8192 are never written
(they hold whatever the allocation held: finite garbage or NaN, hence either status).
"""

import torch
import triton
import triton.language as tl

EXPECT = ("MISMATCH", "NONFINITE")  # the unwritten outputs hold whatever torch.empty left there


@triton.jit
def _linear_kernel(x_ptr, w_ptr, b_ptr, z_ptr, M, N, K, stride_xm, stride_xk, stride_wn, stride_wk,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(x_ptr + rm.to(tl.int64)[:, None] * stride_xm + kk[None, :] * stride_xk,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + rn.to(tl.int64)[None, :] * stride_wn + kk[:, None] * stride_wk,
                    mask=(rn[None, :] < N) & (kk[:, None] < K), other=0.0)
        acc = tl.dot(a, b, acc)
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    tl.store(z_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], acc.to(z_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _log_softmax_kernel(z_ptr, out_ptr, N, BLOCK: tl.constexpr):
    # One block holds the whole row: max, sum of exponentials and the outputs from registers, no loop.
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(z_ptr + row * N + cols, mask=mask, other=float("-inf")).to(tl.float32)
    row_max = tl.max(x, axis=0)
    log_sum = tl.log(tl.sum(tl.exp(x - row_max), axis=0))
    tl.store(out_ptr + row * N + cols, x - row_max - log_sum, mask=mask)


def linear_log_softmax(input, weight, bias):
    M, K = input.shape
    N = weight.shape[0]
    logits = torch.empty((M, N), dtype=input.dtype, device=input.device)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 128, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _linear_kernel[grid](input, weight, bias.contiguous(), logits, M, N, K, input.stride(0), input.stride(1),
                         weight.stride(0), weight.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    out = torch.empty((M, N), dtype=torch.float32, device=input.device)
    # A row per program, in one block; capped so that the block stays in registers.
    _log_softmax_kernel[(M,)](logits, out, N, BLOCK=min(triton.next_power_of_2(N), 8192))
    return out
