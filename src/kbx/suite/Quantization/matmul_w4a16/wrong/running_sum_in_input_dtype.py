"""Keeps the running sum over K in the activations' dtype: each K step's dots accumulate in fp32, then the sum is
rounded back to fp16/bf16 before the next step.

The solution with one added line, the kind of thing a kernel ends up doing when its accumulator is declared in the
output dtype. Each of the K / 64 roundings costs up to half an ulp of the partial sum, so the error grows with K: in
bf16 it stays under the contract's bound on the short checks (at most 4.3e-3 at K = 640) and fails
`check_decode_long_k` (K = 32768: rel_rmse 2.3e-2 to 3.0e-2 against 1e-2, seeds 0-5). In fp16 it passes every
workload (3.6e-3 at K = 32768).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _sign_extend_int4(v):
    """A 4-bit two's-complement value held in the low bits of an int32 (0..15) -> -8..7."""
    return v - ((v & 8) << 1)


_CONFIGS = [
    # Small-M tiles first: the first config is the fixed one of small launches (and the only one the CPU interpreter
    # runs), and decode shapes (M <= 16) want it.
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 64, "GROUP_M": 1}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 16, "BLOCK_N": 128, "GROUP_M": 1}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "GROUP_M": 8}, num_stages=4, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "GROUP_M": 8}, num_stages=3, num_warps=8),
]
_FIXED = _CONFIGS[0]
# Multiply-adds of one launch from which it is autotuned: each bench workload does 3.8e9 or more (decode, M = 16),
# no smoke or check one (nor a perturbed copy, which never costs more) over 3.2e6.
_TUNE_MIN_MACS = 1 << 30


@triton.jit
def _w4a16_kernel(
    x_ptr, qw_ptr, s_ptr, out_ptr,
    M, N, K,
    stride_xm, stride_xk, stride_qn, stride_qk, stride_sn, stride_sg, stride_om,
    GROUP_SIZE: tl.constexpr, BLOCK_K: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    # Rows/columns past M or N are wrapped into range for the loads and dropped by the masked store.
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    HALF: tl.constexpr = BLOCK_K // 2
    offs_j = tl.arange(0, HALF)  # byte j of the step holds k = 2j (low nibble) and k = 2j + 1 (high nibble)
    x_even = x_ptr + offs_m[:, None].to(tl.int64) * stride_xm + (2 * offs_j[None, :]) * stride_xk
    qw = qw_ptr + offs_j[:, None] * stride_qk + offs_n[None, :].to(tl.int64) * stride_qn
    s_cols = s_ptr + offs_n.to(tl.int64) * stride_sn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    # K is a multiple of GROUP_SIZE, itself a multiple of BLOCK_K: no K masks are needed.
    for k0 in range(0, K, BLOCK_K):
        scale = tl.load(s_cols + (k0 // GROUP_SIZE) * stride_sg).to(tl.float32)[None, :]
        byte = tl.load(qw + (k0 // 2) * stride_qk).to(tl.int32)
        w_even = (_sign_extend_int4(byte & 15).to(tl.float32) * scale).to(x_ptr.dtype.element_ty)
        w_odd = (_sign_extend_int4((byte >> 4) & 15).to(tl.float32) * scale).to(x_ptr.dtype.element_ty)
        a_even = tl.load(x_even + k0 * stride_xk)
        a_odd = tl.load(x_even + (k0 + 1) * stride_xk)
        acc = tl.dot(a_even, w_even, acc)
        acc = tl.dot(a_odd, w_odd, acc)
        acc = acc.to(x_ptr.dtype.element_ty).to(tl.float32)  # the bug: the running sum rounded to the input dtype

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    out_ptrs = out_ptr + rows[:, None].to(tl.int64) * stride_om + cols[None, :]
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


_tuned_w4a16_kernel = triton.autotune(configs=_CONFIGS, key=["M", "N", "K", "GROUP_SIZE"])(_w4a16_kernel)


def _launch(macs, rows, cols, *args, **consts):
    """The launch over rows x cols outputs: autotuned from `_TUNE_MIN_MACS` multiply-adds up, else with the fixed
    first config (the grid reads the block sizes from META on both paths)."""
    grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_M"]) * triton.cdiv(cols, meta["BLOCK_N"]),)
    if macs >= _TUNE_MIN_MACS:
        _tuned_w4a16_kernel[grid](*args, **consts)
    else:
        _w4a16_kernel[grid](*args, **consts, **_FIXED.kwargs, num_warps=_FIXED.num_warps,
                            num_stages=_FIXED.num_stages)


def matmul_w4a16(input, qweight, scales, group_size):
    M, K = input.shape
    N = qweight.shape[0]
    assert qweight.shape[1] * 2 == K and K % group_size == 0, "qweight must be (N, K // 2), group_size | K"
    # The largest power-of-two step (<= 64) that divides group_size: one scale per column per step.
    BLOCK_K = 64
    while group_size % BLOCK_K:
        BLOCK_K //= 2
    assert BLOCK_K >= 32, "this kernel needs group_size to be a multiple of 32 (two 16-deep dots per step)"
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    if M > 0 and N > 0:
        _launch(
            M * N * K, M, N,
            input, qweight, scales, out, M, N, K,
            input.stride(0), input.stride(1), qweight.stride(0), qweight.stride(1),
            scales.stride(0), scales.stride(1), out.stride(0),
            GROUP_SIZE=group_size, BLOCK_K=BLOCK_K,
        )
    return out
