"""Reads `mat2` as if it were a contiguous row-major (K, N) tensor: element (k, n) at k * N + n.

`mat2.stride()` is never read. For a column-major (transposed) `mat2`, or a column slice of a wider matrix whose
row stride is larger than N, that address holds a different element and the product is wrong; contiguous
operands, as in the smoke workload, happen to work. `input`'s strides are honoured.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _mm_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * N + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * N
    c_ptrs = c_ptr + offs_m[:, None] * N + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def mm(input, mat2):
    M, K = input.shape
    N = mat2.shape[1]
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    _mm_kernel[grid](input, mat2, out, M, N, K, *input.stride(), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return out
