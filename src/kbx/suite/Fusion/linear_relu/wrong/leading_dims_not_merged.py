"""Flattens the input's leading dims into rows with no reshape, stepping rows by the second-to-last stride.

For an input of shape (..., S, K) it launches over M = numel / K rows and reads row m at m * stride(-2): right
when the leading dims merge into one evenly strided dim (2-D inputs in any layout, every contiguous 3-D input).
A 3-D input holding the first S positions of longer sequences (`h[:, :S]`, batch stride not S rows) is read
from the wrong rows after the first batch entry; `input.reshape(-1, K)` (a copy then) would have been right.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _linear_relu_kernel(
    x_ptr, w_ptr, bias_ptr, out_ptr,
    M, N, K,
    stride_xm, stride_xk,
    stride_wn, stride_wk,
    stride_om, stride_on,
    stride_bias,
    HAS_BIAS: tl.constexpr,
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

    # --- x rows and weight rows (= output columns) this tile needs; B[k, n] = weight[n, k]. ---
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :] * stride_xk
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :] * stride_wn

    # --- z = x @ weight^T, accumulated in fp32 on the tensor cores. ---
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(x_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(w_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk

    # --- Epilogue in registers: + bias (per output column), ReLU, one rounding, masked store. ---
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if HAS_BIAS:
        bias = tl.load(bias_ptr + cols * stride_bias, mask=cols < N, other=0.0).to(tl.float32)
        acc = acc + bias[None, :]
    y = tl.maximum(acc, 0.0)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    out_ptrs = out_ptr + rows[:, None].to(tl.int64) * stride_om + cols[None, :] * stride_on
    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


def linear_relu(input, weight, bias=None):
    K = input.shape[-1]
    N = weight.shape[0]
    assert weight.shape[1] == K, f"weight {tuple(weight.shape)} does not match input {tuple(input.shape)}"
    x = input  # leading dims flattened without a copy: row m sits m row strides from the start
    M = input.numel() // K if K > 0 else 0
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    if M > 0 and N > 0:
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
        _linear_relu_kernel[grid](
            x, weight, bias if bias is not None else out, out,
            M, N, K,
            x.stride(-2), x.stride(-1),
            weight.stride(0), weight.stride(1),
            out.stride(0), out.stride(1),
            bias.stride(0) if bias is not None else 0,
            HAS_BIAS=bias is not None,
        )
    return out.reshape(*input.shape[:-1], N)
