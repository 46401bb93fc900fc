"""Adds one batch at a time into the output, which holds the running sum in fp16/bf16.

A natural way to reuse an addmm kernel: out = beta * input + alpha * batch1[0] @ batch2[0], then for each
further batch out = out + alpha * batch1[b] @ batch2[b]. Each product is summed in fp32, but the running sum is
rounded to the output dtype after every batch (it is what PyTorch's CPU addbmm does), so over B batches the
rounding errors of B partial sums add up: with 129 batches they reach several ulps of the output, while the
reference rounds once. It is also slower: the output is read and written B times.

CPU only: PyTorch's CUDA addbmm adds one batch at a time into the half-precision output, exactly this rounding, so
on a GPU the candidate is as accurate as the eager reference and the truth rule (k times the reference's own error)
passes it (H200, 2026-11-27); PyTorch's CPU addbmm sums in fp32 and rounds once, and there it fails.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"
DEVICE = "cpu"


@triton.jit
def _addmm_kernel(
    c_ptr, a_ptr, b_ptr, out_ptr,
    M, N, K, beta, alpha,
    stride_cm, stride_cn, stride_am, stride_ak, stride_bk, stride_bn, stride_om, stride_on,
    HAS_INPUT: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_ok = offs_k < K - k0
        a = tl.load(a_ptr + rows[:, None] * stride_am + (k0 + offs_k)[None, :] * stride_ak,
                    mask=(rows[:, None] < M) & k_ok[None, :], other=0.0)
        b = tl.load(b_ptr + (k0 + offs_k)[:, None] * stride_bk + cols[None, :] * stride_bn,
                    mask=k_ok[:, None] & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    in_range = (rows[:, None] < M) & (cols[None, :] < N)
    acc = acc * alpha
    if HAS_INPUT:
        acc += beta * tl.load(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn,
                              mask=in_range, other=0.0).to(tl.float32)
    tl.store(out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on,
             acc.to(out_ptr.dtype.element_ty), mask=in_range)


def addbmm(input, batch1, batch2, beta=1, alpha=1):
    B, M, K = batch1.shape
    N = batch2.shape[2]
    out = torch.empty((M, N), device=batch1.device, dtype=batch1.dtype)
    addend, scale = input.expand(M, N), beta
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    for b in range(B):
        a, w = batch1[b], batch2[b]
        _addmm_kernel[grid](addend, a, w, out, M, N, K, float(scale), float(alpha),
                            *addend.stride(), *a.stride(), *w.stride(), *out.stride(),
                            HAS_INPUT=scale != 0, BLOCK_M=64, BLOCK_N=64, BLOCK_K=64)
        addend, scale = out, 1  # later batches add into the rounded running sum
    return out
