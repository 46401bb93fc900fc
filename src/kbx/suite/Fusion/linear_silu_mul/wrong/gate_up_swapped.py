"""Applies the activation to the up projection instead of the gate: silu(x @ w_up^T) * (x @ w_gate^T).

The two weights have the same shape and the two accumulators look alike, so swapping them (or the order of
the arguments) is an easy slip that no shape check catches. silu is not symmetric in its role: the result
differs wherever g and u differ, which is almost everywhere.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _linear_silu_mul_kernel(
    x_ptr, wg_ptr, wu_ptr, out_ptr, M, N, K,
    stride_xm, stride_xk, stride_gn, stride_gk, stride_un, stride_uk, stride_om, stride_on,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :] * stride_xk
    g_ptrs = wg_ptr + offs_k[:, None] * stride_gk + offs_n[None, :] * stride_gn
    u_ptrs = wu_ptr + offs_k[:, None] * stride_uk + offs_n[None, :] * stride_un
    acc_g = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    acc_u = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(x_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        bg = tl.load(g_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        bu = tl.load(u_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc_g = tl.dot(a, bg, acc_g)
        acc_u = tl.dot(a, bu, acc_u)
        x_ptrs += BLOCK_K * stride_xk
        g_ptrs += BLOCK_K * stride_gk
        u_ptrs += BLOCK_K * stride_uk
    y = acc_u * acc_g / (1.0 + tl.exp(-acc_u))  # BUG: silu must be applied to the gate, acc_g
    out_ptrs = out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def linear_silu_mul(input, w_gate, w_up):
    K = input.shape[-1]
    N = w_gate.shape[0]
    x = input.reshape(-1, K)
    M = x.shape[0]
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    _linear_silu_mul_kernel[grid](
        x, w_gate, w_up, out, M, N, K,
        x.stride(0), x.stride(1), w_gate.stride(0), w_gate.stride(1), w_up.stride(0), w_up.stride(1),
        out.stride(0), out.stride(1), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32,
    )
    return out.reshape(*input.shape[:-1], N)
