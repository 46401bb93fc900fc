"""Adds the bias after the activation: tanh(x @ weight^T) + bias instead of tanh(x @ weight^T + bias).

An easy slip when the epilogue is written as "activation, then bias" (the order of a post-activation bias).
tanh is not linear, so every output is shifted by the wrong amount and outputs leave [-1, 1].
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _linear_tanh_kernel(
    x_ptr, w_ptr, bias_ptr, out_ptr, M, N, K,
    stride_xm, stride_xk, stride_wn, stride_wk, stride_om, stride_on,
    HAS_BIAS: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :] * stride_xk
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :] * stride_wn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(x_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(w_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk
    y = 1.0 - 2.0 / (tl.exp(2.0 * acc) + 1.0)
    if HAS_BIAS:  # BUG: the bias belongs inside the tanh
        y += tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0).to(tl.float32)[None, :]
    out_ptrs = out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def linear_tanh(input, weight, bias=None):
    K = input.shape[-1]
    N = weight.shape[0]
    x = input.reshape(-1, K)
    M = x.shape[0]
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    _linear_tanh_kernel[grid](
        x, weight, bias if bias is not None else out, out, M, N, K,
        x.stride(0), x.stride(1), weight.stride(0), weight.stride(1), out.stride(0), out.stride(1),
        HAS_BIAS=bias is not None, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32,
    )
    return out.reshape(*input.shape[:-1], N)
