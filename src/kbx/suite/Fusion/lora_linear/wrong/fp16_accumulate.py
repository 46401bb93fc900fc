"""Keeps the base accumulator in the input dtype (float16 or bfloat16), adding each K tile's product to it.

Each BLOCK_K step's `tl.dot` sums in fp32, but the running sum is rounded to the input dtype after every step:
a saving of registers that loses the low bits of the sum K / BLOCK_K times. With O(1) partial sums and K <= 129
(two or three steps) the loss hides; `check_long_k_offset` (K = 2049, inputs offset by 16 against weight rows
that sum to zero, so the running sums reach 20 to 40 while the outputs stay O(1)) rounds 33 times at a
granularity of 2^-6 to 2^-5 and misses by about twice the normwise bound of the truth rule.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _lora_linear_kernel(
    x_ptr, w_ptr, a_ptr, b_ptr, out_ptr, scale,
    M, N, K, R,
    stride_xm, stride_xk, stride_wn, stride_wk, stride_ar, stride_ak, stride_bn, stride_br, stride_om, stride_on,
    BLOCK_R: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    offs_r = tl.arange(0, BLOCK_R)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :] * stride_xk
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :] * stride_wn
    a_ptrs = a_ptr + offs_k[:, None] * stride_ak + offs_r[None, :] * stride_ar

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=x_ptr.dtype.element_ty)  # BUG: the running sum in fp16 / bf16
    t = tl.zeros((BLOCK_M, BLOCK_R), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        x = tl.load(x_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        w = tl.load(w_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        a = tl.load(a_ptrs, mask=(offs_k[:, None] < k_left) & (offs_r[None, :] < R), other=0.0)
        acc = (acc.to(tl.float32) + tl.dot(x, w)).to(x.dtype)
        t = tl.dot(x, a, t)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk
        a_ptrs += BLOCK_K * stride_ak

    b = tl.load(b_ptr + offs_r[:, None] * stride_br + offs_n[None, :] * stride_bn,
                mask=offs_r[:, None] < R, other=0.0)
    result = acc.to(tl.float32) + scale * tl.dot(t.to(b.dtype), b)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    out_ptrs = out_ptr + rows[:, None].to(tl.int64) * stride_om + cols[None, :] * stride_on
    tl.store(out_ptrs, result.to(out_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


def lora_linear(input, weight, lora_a, lora_b, scale):
    K = input.shape[-1]
    N = weight.shape[0]
    R = lora_a.shape[0]
    x = input.reshape(-1, K)
    M = x.shape[0]
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    BLOCK_M, BLOCK_N = 64, 64
    _lora_linear_kernel[(triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))](
        x, weight, lora_a, lora_b, out, float(scale), M, N, K, R,
        x.stride(0), x.stride(1), weight.stride(0), weight.stride(1), lora_a.stride(0), lora_a.stride(1),
        lora_b.stride(0), lora_b.stride(1), out.stride(0), out.stride(1),
        BLOCK_R=max(16, triton.next_power_of_2(R)), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=64,
    )
    return out.reshape(*input.shape[:-1], N)
