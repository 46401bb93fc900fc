"""Indexes the LoRA matrices as dense row-major tensors: lora_a[r, k] at r * K + k, lora_b[n, r] at n * R + r.

The base weight and the input are read through their strides, but the adapter matrices, being small freshly
trained parameters, are assumed contiguous and their strides never passed. An adapter given as a view (lora_b
stored (R, N) and passed as `.t()`, as some checkpoints keep it, or one adapter sliced out of a stacked
multi-adapter tensor) is read as a different matrix; contiguous adapters happen to work.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K", "BLOCK_R"],
)
@triton.jit
def _lora_linear_kernel(
    x_ptr, w_ptr, a_ptr, b_ptr, out_ptr, scale,
    M, N, K, R,
    stride_xm, stride_xk,
    stride_wn, stride_wk,
    stride_ar, stride_ak,
    stride_bn, stride_br,
    stride_om, stride_on,
    BLOCK_R: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # --- Which output tile is ours (grouped order for L2 reuse). ---
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    offs_r = tl.arange(0, BLOCK_R)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :] * stride_xk
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :] * stride_wn   # W^T[k, n] = W[n, k]
    a_ptrs = a_ptr + offs_k[:, None] * stride_ak + offs_r[None, :] * stride_ar   # A^T[k, r] = A[r, k]

    # --- Base product and rank-R down projection from the same x tiles, both in fp32. ---
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    t = tl.zeros((BLOCK_M, BLOCK_R), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        x = tl.load(x_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        w = tl.load(w_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        a = tl.load(a_ptrs, mask=(offs_k[:, None] < k_left) & (offs_r[None, :] < R), other=0.0)
        acc = tl.dot(x, w, acc)
        t = tl.dot(x, a, t)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk
        a_ptrs += BLOCK_K * stride_ak

    # --- Epilogue: up projection t @ B^T (t rounded to the input dtype), scaled, added; one rounding. ---
    b = tl.load(b_ptr + offs_r[:, None] * stride_br + offs_n[None, :] * stride_bn,
                mask=offs_r[:, None] < R, other=0.0)                           # B^T[r, n] = B[n, r]
    lora = tl.dot(t.to(b.dtype), b)
    acc = acc + scale * lora
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    out_ptrs = out_ptr + rows[:, None].to(tl.int64) * stride_om + cols[None, :] * stride_on
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


def lora_linear(input, weight, lora_a, lora_b, scale):
    K = input.shape[-1]
    N = weight.shape[0]
    R = lora_a.shape[0]
    assert weight.shape[1] == K and lora_a.shape[1] == K and lora_b.shape == (N, R), "inconsistent shapes"
    x = input.reshape(-1, K)  # a view for contiguous or evenly strided leading dims, else a copy
    M = x.shape[0]
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    if M > 0 and N > 0:
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
        _lora_linear_kernel[grid](
            x, weight, lora_a, lora_b, out, float(scale),
            M, N, K, R,
            x.stride(0), x.stride(1),
            weight.stride(0), weight.stride(1),
            K, 1,  # the adapter matrices are small dense parameters: (R, K) and (N, R), row-major
            R, 1,
            out.stride(0), out.stride(1),
            BLOCK_R=max(16, triton.next_power_of_2(R)),
        )
    return out.reshape(*input.shape[:-1], N)
