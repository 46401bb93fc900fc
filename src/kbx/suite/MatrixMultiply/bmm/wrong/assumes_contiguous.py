"""Computes addresses from the shapes as if both operands were contiguous row-major tensors.

`input.stride()` and `mat2.stride()` are never read: element (b, m, k) is taken at b*M*K + m*K + k. For
transposed, strided or batch-interleaved operands that address holds a different element, so the product is
wrong (contiguous inputs, as in the smoke workload, happen to work).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _bmm_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + batch * M * K + offs_m[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + batch * K * N + offs_k[:, None] * N + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    c_ptrs = c_ptr + batch * M * N + offs_m[:, None] * N + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.bfloat16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def bmm(input, mat2):
    B, M, K = input.shape
    N = mat2.shape[2]
    out = torch.empty((B, M, N), device=input.device, dtype=input.dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64), B)
    _bmm_kernel[grid](input, mat2, out, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return out
