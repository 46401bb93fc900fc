"""Linear layer + log_softmax in Triton: a GEMM whose epilogue emits per-tile softmax partials, then one stream.

Kernel 1 (logits + partials). A grouped grid of BLOCK_M x BLOCK_N output tiles (GROUP_M row blocks share each
sweep over the vocabulary, so a band of `weight` is reused from L2). Each program computes its tile of
input @ weight^T with a K loop of tensor-core dots accumulating in fp32 (weight is (N, K) as in F.linear and is
read in place through swapped strides), adds the bias, rounds the tile to the input dtype (the logits of the
definition) and stores it. From the rounded values it then reduces, per row, the tile's maximum m_t and
l_t = sum_v exp(logit_v - m_t), and writes the pair: 8 bytes per row and vocabulary tile. Columns past N are
-inf in this reduction (they exist only because the tile overhangs the vocabulary) and rows past M are dropped.

Kernel 2 (log_softmax). A program takes ROWS rows. It merges the rows' partials, rescaling each tile's sum to the
common maximum,
    m = max_t m_t,    l = sum_t l_t * exp(m_t - m),    lse = m + log(l),
which never overflows (every exponent is <= 0), then streams the rows' logits in BLOCK_N chunks and writes
logit - lse in fp32.

Traffic and time for the 8192 x 2048 -> 32768 bench (bf16): kernel 1 is a 1.1 TFLOP GEMM (about 2 ms at
~550 TFLOP/s on an H100) that writes 0.5 GB of logits; kernel 2 reads them (0.5 GB) and writes 1 GB of fp32
log-probabilities, about 0.5 ms at ~3 TB/s. Eager PyTorch moves the same minimum (cuBLAS writes the logits,
log_softmax reads them and writes fp32) but its log_softmax must reduce every row (max, then sum of exp) before
it can write it, re-reading the row; here those reductions ride in the GEMM epilogue on data already in
registers, so the second pass is a pure stream. Recomputing the GEMM instead of storing the logits would save
the 1 GB round trip (~0.35 ms) but cost a second 1.1 TFLOP GEMM (~2 ms): storing wins for any K above a few
hundred. The partials are tiny (M x N / 128 x 8 bytes, 16 MB here).
"""

import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)  # jit code may only read constexpr globals
LN2 = tl.constexpr(0.6931471805599453)


@triton.jit
def _logits_kernel(
    x_ptr, w_ptr, b_ptr, z_ptr, pmax_ptr, psum_ptr,
    M, N, K, n_tiles,
    stride_xm, stride_xk, stride_wn, stride_wk, stride_zm,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # Grouped order: consecutive programs walk GROUP_M row blocks down one vocabulary column of tiles
    # before moving right, so each weight tile is read from DRAM once per group instead of once per row block.
    pid = tl.program_id(0)
    m_blocks = tl.cdiv(M, BLOCK_M)
    per_group = GROUP_M * n_tiles
    first_m = (pid // per_group) * GROUP_M
    group_rows = tl.minimum(m_blocks - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rows_in = rows % M  # wrapped into range for the loads (no masks in the K loop); stores are masked
    cols_in = cols % N
    offs_k = tl.arange(0, BLOCK_K)

    # --- input[rows] @ weight[cols]^T, fp32 accumulation on the tensor cores. ---
    x_ptrs = x_ptr + rows_in[:, None].to(tl.int64) * stride_xm + offs_k[None, :] * stride_xk
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + cols_in[None, :].to(tl.int64) * stride_wn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(x_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(w_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk

    # --- Epilogue: bias, one rounding to the logits' dtype, store. ---
    acc += tl.load(b_ptr + cols_in).to(tl.float32)[None, :]
    z = acc.to(z_ptr.dtype.element_ty)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(z_ptr + rows[:, None].to(tl.int64) * stride_zm + cols[None, :], z, mask=inside)

    # --- Softmax partials of the rounded logits; overhanging columns do not exist. ---
    zf = tl.where(cols[None, :] < N, z.to(tl.float32), float("-inf"))
    m_t = tl.max(zf, 1)
    l_t = tl.sum(tl.exp2((zf - m_t[:, None]) * LOG2E), 1)
    part = rows.to(tl.int64) * n_tiles + pid_n
    tl.store(pmax_ptr + part, m_t, mask=rows < M)
    tl.store(psum_ptr + part, l_t, mask=rows < M)


@triton.jit
def _log_softmax_kernel(z_ptr, pmax_ptr, psum_ptr, out_ptr, M, N, n_tiles, stride_zm, stride_om,
                        ROWS: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < M

    # Merge the per-tile partials into each row's logsumexp, rescaling every tile's sum to the row maximum.
    t = tl.arange(0, BLOCK_T)
    pmask = row_ok[:, None] & (t[None, :] < n_tiles)
    part = rows[:, None] * n_tiles + t[None, :]
    m_t = tl.load(pmax_ptr + part, mask=pmask, other=float("-inf"))
    l_t = tl.load(psum_ptr + part, mask=pmask, other=0.0)
    m = tl.max(m_t, 1)
    m = tl.where(row_ok, m, 0.0)  # rows past M: keep finite (never stored)
    l = tl.sum(l_t * tl.exp2((m_t - m[:, None]) * LOG2E), 1)
    l = tl.where(row_ok, l, 1.0)
    lse = m + tl.log2(l) * LN2

    # Stream the rows: log-probability = logit - lse, in fp32.
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = row_ok[:, None] & (cols[None, :] < N)
        z = tl.load(z_ptr + rows[:, None] * stride_zm + cols[None, :], mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :], z - lse[:, None], mask=mask)


def linear_log_softmax(input, weight, bias):
    M, K = input.shape
    N = weight.shape[0]
    assert weight.shape[1] == K and bias.shape == (N,), "input (M, K), weight (N, K), bias (N,)"
    out = torch.empty((M, N), device=input.device, dtype=torch.float32)
    if M == 0 or N == 0:
        return out
    BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M = 128, 128, 64, 8
    n_tiles = triton.cdiv(N, BLOCK_N)
    logits = torch.empty((M, N), device=input.device, dtype=input.dtype)
    pmax = torch.empty((M, n_tiles), device=input.device, dtype=torch.float32)
    psum = torch.empty_like(pmax)
    _logits_kernel[(triton.cdiv(M, BLOCK_M) * n_tiles,)](
        input, weight, bias.contiguous(), logits, pmax, psum,
        M, N, K, n_tiles,
        input.stride(0), input.stride(1), weight.stride(0), weight.stride(1), logits.stride(0),
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, num_warps=8, num_stages=3,
    )
    ROWS = 4
    _log_softmax_kernel[(triton.cdiv(M, ROWS),)](
        logits, pmax, psum, out, M, N, n_tiles, logits.stride(0), out.stride(0),
        ROWS=ROWS, BLOCK_T=max(2, triton.next_power_of_2(n_tiles)), BLOCK_N=1024, num_warps=4,
    )
    return out
