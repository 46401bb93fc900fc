"""Keeps the running sum in bfloat16 between K steps, rounding it after every tile product.

bfloat16 has 8 significant bits, so each K step adds an error of up to half an ulp of the partial sum
(~0.2%); over several steps the outputs drift far beyond the two-ulp tolerance, worst where they cancel to
nearly zero. The reference sums in fp32 and rounds once.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _bmm_kernel(
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
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.bfloat16)  # the output dtype, to save registers
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = (acc + tl.dot(a, b)).to(tl.bfloat16)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + batch * stride_cb + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def bmm(input, mat2):
    B, M, K = input.shape
    N = mat2.shape[2]
    out = torch.empty((B, M, N), device=input.device, dtype=input.dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64), B)
    _bmm_kernel[grid](input, mat2, out, M, N, K, *input.stride(), *mat2.stride(), *out.stride(),
                      BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return out
