"""Skips quantization: a plain fp16 matrix product with fp32 accumulation (input @ weight^T).

Mathematically the "better" answer, but not the operation asked for: the task defines the W8A8 result, whose
int8 rounding (one step is max|row| / 127) moves the outputs by about 1% of their RMS on these inputs, rows with
outliers more. That difference is what the contract measures, and it is far above the bound.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _linear_kernel(
    x_ptr, w_ptr, out_ptr, M, N, K,
    stride_xm, stride_xk, stride_wn, stride_wk, stride_om, stride_on,
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
    out_ptrs = out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    tl.store(out_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def matmul_w8a8(input, weight):
    M, K = input.shape
    N = weight.shape[0]
    out = torch.empty((M, N), device=input.device, dtype=torch.float16)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    _linear_kernel[grid](
        input, weight, out, M, N, K,
        input.stride(0), input.stride(1), weight.stride(0), weight.stride(1), out.stride(0), out.stride(1),
        BLOCK_M=64, BLOCK_N=64, BLOCK_K=32,
    )
    return out
