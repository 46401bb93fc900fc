"""Keeps the running sum in fp16 (`tl.dot(..., out_dtype=tl.float16)`) to save registers.

Every K step rounds the partial sum to fp16, so the error grows with the number of steps: over K = 4097 it
reaches several ulps of the partial sums (outputs near zero are off by far more than their own ulp), while
the reference rounds only once, from an fp32 sum.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + batch * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, out_dtype=tl.float16)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + batch * stride_cb + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def matmul(input, other):
    M, K = input.shape[-2:]
    N = other.shape[-1]
    batch = torch.broadcast_shapes(input.shape[:-2], other.shape[:-2])
    a = input.expand(*batch, M, K).reshape(-1, M, K)
    b = other.expand(*batch, K, N).reshape(-1, K, N)
    out = torch.empty((a.shape[0], M, N), device=a.device, dtype=a.dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64), a.shape[0])
    _matmul_kernel[grid](a, b, out, M, N, K, *a.stride(), *b.stride(), *out.stride(),
                         BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return out.reshape(*batch, M, N)
