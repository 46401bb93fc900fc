"""Leaves `tl.dot` at its default precision, which for float32 operands on a GPU is TF32.

A careful tiled GEMM in every other respect (fp32 accumulator, masked K tail, strides honoured, wrapped M/N
edges), but `tl.dot(a, b, acc)` without `input_precision="ieee"`: on Ampere and Hopper Triton then rounds every
fp32 operand to TF32 (10 mantissa bits) and multiplies on the tensor cores. The contract of `mm` demands true
fp32 (`"tf32": False`); TF32 operands put a relative error of about 2^-11 on every product, which exceeds the fp32
tolerance (1e-5 * sqrt(K) + 1e-5 * |ref|) about 100x on 95-99 % of the elements of every smoke and check
workload (emulated on the CPU, operands rounded to 10 bits: `docs/gpu-verification.md`).

GPU only: the CPU interpreter ignores `input_precision` and multiplies in full fp32, so it passes there.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"
DEVICE = "cuda"


@triton.jit
def _mm_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    # Rows and columns past the edge are wrapped back into range; the masked store drops them.
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)  # fp32 accumulator
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


def mm(input, mat2):
    assert input.dim() == 2 and mat2.dim() == 2 and input.shape[1] == mat2.shape[0]
    M, K = input.shape
    N = mat2.shape[1]
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    if M == 0 or N == 0:
        return out
    if K == 0:
        return out.zero_()
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    _mm_kernel[grid](
        input, mat2, out, M, N, K, *input.stride(), *mat2.stride(), *out.stride(),
        BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=3,
    )
    return out
