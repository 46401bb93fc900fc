"""Uses the tanh approximation of GELU between the two products instead of the exact erf form.

0.5 z (1 + tanh(sqrt(2/pi) (z + 0.044715 z^3))) differs from 0.5 z (1 + erf(z / sqrt(2))) by an amount even in
z: +4.7e-4 at |z| = 2.7, -2.3e-4 near |z| = 1.5, at most 1.5e-4 in magnitude for |z| < 1. The task asks for
F.gelu's default, approximate='none'. The second product sums these differences over the hidden units.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

SQRT_2_OVER_PI = tl.constexpr(0.7978845608028654)  # jit code may only read constexpr globals


_CONFIGS = [
    # The first config is the fixed one of small launches (and the only one the CPU interpreter runs).
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
]
_FIXED = _CONFIGS[0]
# Multiply-adds of one launch (one of the two GEMMs) from which it is autotuned: each GEMM of a bench workload does
# 1.4e11 or more, no smoke or check one (nor one of a perturbed copy, which never costs more) over 2.1e6.
_TUNE_MIN_MACS = 1 << 30


@triton.jit
def _linear_kernel(
    x_ptr, w_ptr, bias_ptr, out_ptr,
    M, N, K,
    stride_xm, stride_xk,
    stride_wn, stride_wk,
    stride_om, stride_on,
    stride_bias,
    HAS_BIAS: tl.constexpr, APPLY_GELU: tl.constexpr,
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

    # --- x rows and weight rows (= output columns) this tile needs; B[k, n] = weight[n, k]. ---
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :] * stride_xk
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :] * stride_wn

    # --- z = x @ weight^T, accumulated in fp32. ---
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(x_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(w_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk

    # --- Epilogue in registers: + bias, GELU (tanh form) if asked, one rounding, masked store. ---
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if HAS_BIAS:
        bias = tl.load(bias_ptr + cols * stride_bias, mask=cols < N, other=0.0).to(tl.float32)
        acc = acc + bias[None, :]
    if APPLY_GELU:
        inner = SQRT_2_OVER_PI * (acc + 0.044715 * acc * acc * acc)
        acc = 0.5 * acc * (1.0 + (1.0 - 2.0 / (tl.exp(2.0 * inner) + 1.0)))  # tanh(inner)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    out_ptrs = out_ptr + rows[:, None].to(tl.int64) * stride_om + cols[None, :] * stride_on
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


_tuned_linear_kernel = triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])(_linear_kernel)


def _launch(macs, rows, cols, *args, **consts):
    """One GEMM's launch over rows x cols outputs: autotuned from `_TUNE_MIN_MACS` multiply-adds up, else with the
    fixed first config (the grid reads the block sizes from META on both paths)."""
    grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_M"]) * triton.cdiv(cols, meta["BLOCK_N"]),)
    if macs >= _TUNE_MIN_MACS:
        _tuned_linear_kernel[grid](*args, **consts)
    else:
        _linear_kernel[grid](*args, **consts, **_FIXED.kwargs, num_warps=_FIXED.num_warps,
                             num_stages=_FIXED.num_stages)


def _linear(x, weight, bias, apply_gelu):
    """act(x @ weight^T + bias) for a 2-D x, in x's dtype."""
    M, K = x.shape
    N = weight.shape[0]
    assert weight.shape[1] == K, f"weight {tuple(weight.shape)} does not match input {tuple(x.shape)}"
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    if M > 0 and N > 0:
        _launch(
            M * N * K, M, N,
            x, weight, bias if bias is not None else out, out,
            M, N, K,
            x.stride(0), x.stride(1),
            weight.stride(0), weight.stride(1),
            out.stride(0), out.stride(1),
            bias.stride(0) if bias is not None else 0,
            HAS_BIAS=bias is not None, APPLY_GELU=apply_gelu,
        )
    return out


def mlp_gelu(input, w1, b1, w2, b2):
    x = input.reshape(-1, input.shape[-1])  # a view for contiguous or evenly strided leading dims, else a copy
    h = _linear(x, w1, b1, apply_gelu=True)  # the pre-activation stays in registers; h is stored once
    out = _linear(h, w2, b2, apply_gelu=False)
    return out.reshape(*input.shape[:-1], w2.shape[0])
