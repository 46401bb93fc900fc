"""Normalizes with 1/sqrt(var) and forgets eps.

LayerNorm divides by sqrt(var + eps). Dropping eps is invisible on rows of unit variance with eps = 1e-5, but
on rows of small variance with a large eps (std 0.05, eps 0.1: var + eps is 41x var) every normalized value is
several times too large.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _row_stats_kernel(
    x_ptr, mean_ptr, rstd_ptr,
    M, K, stride_xm, stride_xk, eps,
    BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    row_ok = rows < M
    row_ptrs = x_ptr + rows.to(tl.int64)[:, None] * stride_xm
    # Pass 1: the mean, accumulated element-wise in fp32 and reduced once at the end.
    total = tl.zeros((BLOCK_R, BLOCK_K), tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        ok = row_ok[:, None] & (cols < K)[None, :]
        total += tl.load(row_ptrs + cols[None, :] * stride_xk, mask=ok, other=0.0).to(tl.float32)
    mean = tl.sum(total, 1) / K
    # Pass 2: the biased variance as the mean squared deviation (no E[x^2] - mean^2 cancellation).
    total = tl.zeros((BLOCK_R, BLOCK_K), tl.float32)
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + tl.arange(0, BLOCK_K)
        ok = row_ok[:, None] & (cols < K)[None, :]
        x = tl.load(row_ptrs + cols[None, :] * stride_xk, mask=ok, other=0.0).to(tl.float32)
        d = tl.where(ok, x - mean[:, None], 0.0)
        total += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(total, 1) / K)  # BUG: eps is never added
    tl.store(mean_ptr + rows, mean, mask=row_ok)
    tl.store(rstd_ptr + rows, rstd, mask=row_ok)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _ln_linear_kernel(
    x_ptr, mean_ptr, rstd_ptr, g_ptr, beta_ptr, w_ptr, bias_ptr, out_ptr,
    M, N, K,
    stride_xm, stride_xk, stride_g, stride_beta,
    stride_wn, stride_wk,
    stride_om, stride_on,
    stride_bias,
    HAS_BIAS: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # --- Which output tile is ours (grouped order for L2 reuse). ---
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    # --- Input rows (with their statistics) and weight rows (= output columns) this tile needs. ---
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    mean = tl.load(mean_ptr + offs_m)[:, None]
    rstd = tl.load(rstd_ptr + offs_m)[:, None]
    x_ptrs = x_ptr + offs_m.to(tl.int64)[:, None] * stride_xm + offs_k[None, :] * stride_xk
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n.to(tl.int64)[None, :] * stride_wn
    g_ptrs = g_ptr + offs_k * stride_g
    beta_ptrs = beta_ptr + offs_k * stride_beta

    # --- out = LayerNorm(x) @ weight^T, the normalization applied to each A tile as it is loaded. ---
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_ok = offs_k < K - k * BLOCK_K
        x = tl.load(x_ptrs, mask=k_ok[None, :], other=0.0).to(tl.float32)
        g = tl.load(g_ptrs, mask=k_ok, other=0.0).to(tl.float32)
        beta = tl.load(beta_ptrs, mask=k_ok, other=0.0).to(tl.float32)
        # Prologue: normalize in fp32, round to the weight's dtype like the unfused LayerNorm output.
        h = ((x - mean) * rstd * g[None, :] + beta[None, :]).to(w_ptr.dtype.element_ty)
        b = tl.load(w_ptrs, mask=k_ok[:, None], other=0.0)
        acc = tl.dot(h, b, acc)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk
        g_ptrs += BLOCK_K * stride_g
        beta_ptrs += BLOCK_K * stride_beta

    # --- Epilogue: + bias in fp32, one rounding, masked store. ---
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if HAS_BIAS:
        acc += tl.load(bias_ptr + cols * stride_bias, mask=cols < N, other=0.0).to(tl.float32)[None, :]
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    out_ptrs = out_ptr + rows.to(tl.int64)[:, None] * stride_om + cols[None, :] * stride_on
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


def layer_norm_linear(input, norm_weight, norm_bias, weight, bias=None, eps=1e-05):
    K = input.shape[-1]
    N = weight.shape[0]
    assert weight.shape[1] == K, f"weight {tuple(weight.shape)} does not match input {tuple(input.shape)}"
    x = input.reshape(-1, K)  # a view for contiguous or evenly strided leading dims, else a copy
    M = x.shape[0]
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    if M == 0 or N == 0:
        return out.reshape(*input.shape[:-1], N)
    mean = torch.empty((M,), device=input.device, dtype=torch.float32)
    rstd = torch.empty((M,), device=input.device, dtype=torch.float32)
    # 1. Per-row statistics: 16 rows per program, read in 256-wide chunks (row-major or column-major alike).
    _row_stats_kernel[(triton.cdiv(M, 16),)](
        x, mean, rstd, M, K, x.stride(0), x.stride(1), float(eps), BLOCK_R=16, BLOCK_K=256, num_warps=4,
    )
    # 2. The GEMM with the normalization in its prologue and the bias in its epilogue.
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    _ln_linear_kernel[grid](
        x, mean, rstd, norm_weight, norm_bias, weight, bias if bias is not None else out, out,
        M, N, K,
        x.stride(0), x.stride(1), norm_weight.stride(0), norm_bias.stride(0),
        weight.stride(0), weight.stride(1),
        out.stride(0), out.stride(1),
        bias.stride(0) if bias is not None else 0,
        HAS_BIAS=bias is not None,
    )
    return out.reshape(*input.shape[:-1], N)
