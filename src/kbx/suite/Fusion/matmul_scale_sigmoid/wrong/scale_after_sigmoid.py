"""Scales the sigmoid's output instead of its argument: scale * sigmoid(z) rather than sigmoid(scale * z).

Reading the composition inside out is an easy slip when the epilogue is written as "activation, then
post-scale" (the order of a quantisation epilogue). Outputs then range over (0, scale) instead of (0, 1) and
have the wrong slope: wrong everywhere unless scale is 1.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(
    a_ptr, b_ptr, out_ptr, scale, M, N, K,
    stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_ob, stride_om, stride_on,
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
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    y = scale / (1.0 + tl.exp(-acc))  # BUG: the scale belongs inside the sigmoid
    out_ptrs = out_ptr + batch * stride_ob + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def matmul_scale_sigmoid(input, other, scale):
    a = input if input.dim() == 3 else input.unsqueeze(0)
    b = other if other.dim() == 3 else other.unsqueeze(0)
    B, M, K = a.shape
    N = b.shape[-1]
    out = torch.empty((B, M, N), device=input.device, dtype=input.dtype)
    stride_bb = b.stride(0) if b.shape[0] == B and B > 1 else 0
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64), B)
    _kernel[grid](
        a, b, out, float(scale), M, N, K, a.stride(0), a.stride(1), a.stride(2), stride_bb, b.stride(1),
        b.stride(2), out.stride(0), out.stride(1), out.stride(2), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32,
    )
    return out if input.dim() == 3 or other.dim() == 3 else out[0]
