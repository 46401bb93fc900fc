"""Linear layer + exact GELU in one Triton kernel: tiled tl.dot with bias and GELU in the epilogue.

The unfused version writes the (M, N) linear output to memory, reads it back to add GELU and writes it again.
Here each program computes one BLOCK_M x BLOCK_N tile of z = x @ weight^T in an fp32 accumulator, then adds the
bias, applies GELU and rounds to the output dtype while the tile is still in registers: the output is written
once and never re-read. On the bench shape (8192 x 16384 fp16 output, 256 MB) this saves ~0.5 GB of traffic,
about 0.17 ms at 3 TB/s.

Tiling. `weight` is (N, K) as in F.linear, so the B operand is weight^T: the (k, n) element of B lives at
weight[n, k]; passing weight's strides swapped reads it in place, with no transposed copy. The K loop loads a
BLOCK_M x BLOCK_K tile of x and a BLOCK_K x BLOCK_N tile of weight^T per step and accumulates their tensor-core
product in fp32; the last, partial K step loads zeros. Rows and columns past M or N are wrapped into range for
the loads and dropped by the masked store. Programs run in grouped order (GROUP_M rows of tiles sweep the
columns together) so the x strip and weight panels they share stay in L2.

Epilogue. z = acc + bias (fp32), gelu(z) = 0.5 * z * (1 + erf(z / sqrt(2))) in fp32, one rounding to fp16/bf16.
GELU is applied to the fp32 z, which is slightly more accurate than the unfused reference (that rounds z to the
output dtype first); the difference is within the task's tolerance.

Speed. The bench shape (8192 x 4096 @ 4096 x 16384) is 1.1 TFLOP. Measured on an H200: 2.2 ms, about 500
TFLOP/s, where cuBLAS plus a separate GELU takes 1.9 ms; expect about the same on an H100. The erf epilogue
costs little; the gap is the main loop, which cuBLAS runs faster than this plain tl.dot pipeline.
"""

import torch
import triton
import triton.language as tl

SQRT_HALF = tl.constexpr(0.7071067811865476)  # jit code may only read constexpr globals


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _linear_gelu_kernel(
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

    # --- z = x @ weight^T, accumulated in fp32. ---
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(x_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(w_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk

    # --- Epilogue in registers: + bias, exact (erf) GELU, one rounding, masked store. ---
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if HAS_BIAS:
        bias = tl.load(bias_ptr + cols * stride_bias, mask=cols < N, other=0.0).to(tl.float32)
        acc = acc + bias[None, :]
    y = 0.5 * acc * (1.0 + tl.math.erf(acc * SQRT_HALF))
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    out_ptrs = out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on
    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


def linear_gelu(input, weight, bias=None):
    K = input.shape[-1]
    N = weight.shape[0]
    assert weight.shape[1] == K, f"weight {tuple(weight.shape)} does not match input {tuple(input.shape)}"
    x = input.reshape(-1, K)  # a view for contiguous or evenly strided leading dims, else a copy
    M = x.shape[0]
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    if M > 0 and N > 0:
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
        _linear_gelu_kernel[grid](
            x, weight, bias if bias is not None else out, out,
            M, N, K,
            x.stride(0), x.stride(1),
            weight.stride(0), weight.stride(1),
            out.stride(0), out.stride(1),
            bias.stride(0) if bias is not None else 0,
            HAS_BIAS=bias is not None,
        )
    return out.reshape(*input.shape[:-1], N)
