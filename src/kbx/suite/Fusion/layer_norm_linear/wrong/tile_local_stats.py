"""Takes the mean and variance of each BLOCK_K-wide tile of a row instead of the whole row.

A GEMM prologue only ever holds BLOCK_K columns of a row, and normalizing "what is loaded" uses the tile's own
statistics. That equals LayerNorm only when K <= BLOCK_K; with K = 129 the row is cut into 64 + 64 + 1 columns,
each normalized on its own (the lone last column becomes (x - x) * rsqrt(eps) = 0).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


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
    x_ptr, eps, g_ptr, beta_ptr, w_ptr, bias_ptr, out_ptr,
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
        # BUG: statistics of this tile's columns only, not of the whole row.
        n_k = tl.sum(k_ok.to(tl.float32), 0)
        mean = (tl.sum(x, 1) / n_k)[:, None]
        d = tl.where(k_ok[None, :], x - mean, 0.0)
        rstd = (1.0 / tl.sqrt(tl.sum(d * d, 1) / n_k + eps))[:, None]
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
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    _ln_linear_kernel[grid](
        x, float(eps), norm_weight, norm_bias, weight, bias if bias is not None else out, out,
        M, N, K,
        x.stride(0), x.stride(1), norm_weight.stride(0), norm_bias.stride(0),
        weight.stride(0), weight.stride(1),
        out.stride(0), out.stride(1),
        bias.stride(0) if bias is not None else 0,
        HAS_BIAS=bias is not None,
    )
    return out.reshape(*input.shape[:-1], N)
