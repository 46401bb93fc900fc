"""Matrix product + scale + sigmoid in one Triton kernel: tiled tl.dot, scale and sigmoid in the epilogue.

Unfused, torch.matmul writes z, the multiply reads z and writes scale * z, and sigmoid reads that and writes
the output: four extra passes over the (..., M, N) result. Here each program computes one BLOCK_M x BLOCK_N
tile of one batch's z in an fp32 accumulator, then evaluates 1 / (1 + exp(-scale * z)) and rounds once while
the tile is in registers: z and scale * z never reach memory. On the 8192^2 fp16 bench that saves ~0.5 GB of
traffic (~0.2 ms at 3 TB/s).

Tiling. Grid axis 0 enumerates output tiles in grouped order (GROUP_M rows of tiles sweep the columns together,
so the operand panels they share stay in L2); axis 1 is the batch. A 2-D `other` shared by the batch gets a
batch stride of 0. Both operands are read through their strides, so a column-major `other` or a strided
`input` is used in place. The K loop accumulates BLOCK_M x BLOCK_K by BLOCK_K x BLOCK_N tile products in
fp32 on the tensor cores; the last, partial K step loads zeros. Rows and columns past M or N are wrapped into
range (`% M`, `% N`) for the loads and dropped by the masked store.

Sigmoid. 1 / (1 + exp(-t)) is safe for any fp32 t: for t < -88, exp(-t) overflows to inf and the quotient is
0, the right limit; for large t it is 1. (exp(t) / (1 + exp(t)) would give inf / inf = NaN.)

Speed. The bench shapes are 1.1 and 2.2 TFLOP; at 500-600 TFLOP/s on an H100 that is about 2 ms and 4 ms,
near cuBLAS alone; the epilogue's exp and division are hidden behind the main loop. Only a launch of at least
`_TUNE_MIN_MACS` multiply-adds (both bench workloads, no check) is autotuned; smaller ones take the first config, as
autotuning each of the many check shapes cost minutes of GPU time and only the bench is timed.
"""

import torch
import triton
import triton.language as tl

_CONFIGS = [
    # The first config is the fixed one of small launches (and the only one the CPU interpreter runs).
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
]
_FIXED = _CONFIGS[0]
# Multiply-adds of one launch (all batches) from which it is autotuned: each bench workload does 5.5e11-1.1e12, no
# smoke or check one (nor a perturbed copy, which never costs more) over 1.1e6.
_TUNE_MIN_MACS = 1 << 30


@triton.jit
def _matmul_scale_sigmoid_kernel(
    a_ptr, b_ptr, out_ptr, scale,
    M, N, K,
    stride_ab, stride_am, stride_ak,
    stride_bb, stride_bk, stride_bn,
    stride_ob, stride_om, stride_on,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # --- Which output tile is ours (grouped order for L2 reuse), and which batch. ---
    pid = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)
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
    a_ptrs = a_ptr + batch * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    # --- z = input @ other, accumulated in fp32 on the tensor cores. ---
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    # --- Epilogue in registers: sigmoid(scale * z) in fp32, one rounding, masked store. ---
    y = 1.0 / (1.0 + tl.exp(-(acc * scale)))
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    out_ptrs = out_ptr + batch * stride_ob + rows[:, None].to(tl.int64) * stride_om + cols[None, :] * stride_on
    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


_tuned_matmul_scale_sigmoid_kernel = triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])(
    _matmul_scale_sigmoid_kernel
)


def _launch(macs, rows, cols, batches, *args):
    """The launch over `batches` products of rows x cols: autotuned from `_TUNE_MIN_MACS` multiply-adds up, else
    with the fixed first config (the grid reads the block sizes from META on both paths)."""
    grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_M"]) * triton.cdiv(cols, meta["BLOCK_N"]), batches)
    if macs >= _TUNE_MIN_MACS:
        _tuned_matmul_scale_sigmoid_kernel[grid](*args)
    else:
        _matmul_scale_sigmoid_kernel[grid](*args, **_FIXED.kwargs, num_warps=_FIXED.num_warps,
                                           num_stages=_FIXED.num_stages)


def matmul_scale_sigmoid(input, other, scale):
    assert input.dim() in (2, 3) and other.dim() in (2, 3), "input (B?, M, K), other (B?, K, N)"
    a = input if input.dim() == 3 else input.unsqueeze(0)
    b = other if other.dim() == 3 else other.unsqueeze(0)
    B, M, K = a.shape
    N = b.shape[-1]
    assert b.shape[-2] == K and b.shape[0] in (1, B), f"cannot multiply {tuple(input.shape)} by {tuple(other.shape)}"
    out = torch.empty((B, M, N), device=input.device, dtype=input.dtype)
    if B > 0 and M > 0 and N > 0:
        stride_bb = b.stride(0) if b.shape[0] == B and B > 1 else 0  # one matrix shared by every batch
        _launch(
            B * M * N * K, M, N, B,
            a, b, out, float(scale),
            M, N, K,
            a.stride(0), a.stride(1), a.stride(2),
            stride_bb, b.stride(1), b.stride(2),
            out.stride(0), out.stride(1), out.stride(2),
        )
    return out if input.dim() == 3 or other.dim() == 3 else out[0]
