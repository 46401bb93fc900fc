"""Flattens the input's leading dims into rows with no reshape, stepping rows by the second-to-last stride.

For an input of shape (..., S, K) it launches over M = numel / K rows and reads row m at m * stride(-2), which is
right when the leading dims merge into one evenly strided dim: 2-D inputs in any layout, every contiguous 3-D
input and a 3-D view strided in its last dim only. A 3-D input whose batch stride is not S times its row stride
(the first S positions of a longer sequence buffer, `h[:, :S]`) is read from the wrong rows after the first batch
entry; `input.reshape(-1, K)` (a copy when the dims do not merge) would have been right.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

_CONFIGS = [
    # The first config is the fixed one of small launches (and the only one the CPU interpreter runs), which pays
    # for the whole tile there: a small one leads. The large bf16 tiles exceed shared memory for fp32 operands and
    # are pruned for float32.
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
]
_FIXED = _CONFIGS[0]
# Multiply-adds of one launch from which it is autotuned: each bench workload does 2.7e11, no smoke or check one
# (nor a perturbed copy, which never costs more) over 3.2e6.
_TUNE_MIN_MACS = 1 << 30


@triton.jit
def _linear_kernel(
    a_ptr, w_ptr, bias_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_wn, stride_wk,
    stride_cm, stride_cn,
    HAS_BIAS: tl.constexpr, PRECISION: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # --- Which output tile is ours: grouped order for L2 reuse. ---
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    # --- A rows and W^T columns of the first K step (B[k, n] = W[n, k]: W's strides, swapped). ---
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :] * stride_wn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_wk

    # --- Epilogue: bias in fp32, one rounding, masked store. ---
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if HAS_BIAS:
        bias = tl.load(bias_ptr + cols, mask=cols < N, other=0.0)
        acc += bias.to(tl.float32)[None, :]
    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


_tuned_linear_kernel = triton.autotune(configs=_CONFIGS, key=["M", "N", "K", "HAS_BIAS"])(_linear_kernel)


def _launch(macs, rows, cols, *args, **consts):
    """The launch over rows x cols outputs: autotuned from `_TUNE_MIN_MACS` multiply-adds up, else with the fixed
    first config (the grid reads the block sizes from META on both paths)."""
    grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_M"]) * triton.cdiv(cols, meta["BLOCK_N"]),)
    if macs >= _TUNE_MIN_MACS:
        _tuned_linear_kernel[grid](*args, **consts)
    else:
        _linear_kernel[grid](*args, **consts, **_FIXED.kwargs, num_warps=_FIXED.num_warps,
                             num_stages=_FIXED.num_stages)


def _n_contiguous_if_float32(b):
    """The second operand B (K x N, read at b[k, n] through its strides) as the float32 dot wants it. Triton's IEEE
    float32 dot runs on the CUDA cores, and with K the contiguous dim of B it ran at half the rate of an N-contiguous
    B (24.4 against 12.0 ms on an H200 at 4096 x 8192 x 8192, `benchmarks/gemm_operand_layout.py`); a transposing
    copy costs 0.2-0.4 ms of that. 16-bit operands keep their layout: on the tensor cores the copy costs more than
    the 10-15 % it would save."""
    if b.dtype == torch.float32 and b.stride(0) == 1 and b.shape[0] > 1 and b.stride(1) != 1:
        return b.contiguous()
    return b


def linear(input, weight, bias=None):
    *lead, K = input.shape
    N, K2 = weight.shape
    assert K == K2, f"input has {K} features, weight expects {K2}"
    a = input  # leading dims flattened into M rows without a copy: row m sits m row strides from the start
    weight = _n_contiguous_if_float32(weight.t()).t()  # B = weight.t(), read through weight's strides
    M = input.numel() // K if K > 0 else 0
    out = torch.empty((M, N), device=input.device, dtype=input.dtype)
    if M > 0 and N > 0:
        _launch(
            M * N * K, M, N,
            a, weight, bias if bias is not None else weight, out, M, N, K,
            a.stride(-2), a.stride(-1), *weight.stride(), *out.stride(),
            HAS_BIAS=bias is not None, PRECISION="ieee" if input.dtype == torch.float32 else "tf32",
        )
    return out.reshape(*lead, N)
