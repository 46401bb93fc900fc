"""addbmm in Triton: one GEMM whose reduction runs over batches and K together, fp32 accumulator, fused epilogue.

Tiling. sum_b batch1[b] @ batch2[b] is a single matrix product with a reduction of length B * K: the (M, B*K)
matrix of batch1's batches side by side times the (B*K, N) stack of batch2's. Program t computes one BLOCK_M x
BLOCK_N output tile and walks that reduction in steps of BLOCK_K within each batch: step s covers batch
s // k_tiles, columns (s % k_tiles) * BLOCK_K onwards, so each step is one `tl.dot` (fp16/bf16 in, fp32 out) on
the tensor cores. The batches and K are flattened into one loop, not nested, so that Triton's software pipeline
keeps loads in flight across batch boundaries even when K is a single step (K = 64 in bench_many_small_k). The
sum stays in the fp32 accumulator across all batches and is rounded once. Rows and columns past M or N are
wrapped back into range so the hot loop needs no M/N mask; only the K tail of each batch is masked. Tiles are
numbered in groups of GROUP_M tile rows so the operand panels they share stay in L2.

Strides. Every operand is read through its strides, so column-major matrices, strided views and batch-inner
layouts (batch stride smaller than the row stride) are read in place: nothing is copied. PyTorch's own CUDA path
first copies batch1 into an (M, B*K) matrix; this kernel does not need to. Batch offsets are 64-bit.

Epilogue. `alpha * acc + beta * input` in fp32, rounded once. `input` is passed as its (M, N) broadcast view
(stride 0 along broadcast dimensions), so a bias row, a column or a single value is read by the same strided
load. When beta is 0 the load is compiled out (`HAS_INPUT`): torch's definition ignores `input` then, so NaN in it
cannot leak into the output.

Speed. bench_square is 2.2 TFLOP (B * K = 65536) over 1 GB of operands: about 600-650 TFLOP/s on an H100,
3.4-3.7 ms. bench_many_small_k is 1.1 TFLOP over 1 GB of operands (K = 64, B = 2048): about 1.8-2 ms, where
eager PyTorch also pays for copying batch1. Only a launch of at least `_TUNE_MIN_MACS` multiply-adds (both bench
workloads, no check) is autotuned; smaller ones take the first config, as autotuning each of the many check shapes
cost minutes of GPU time and only the bench is timed.
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
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
]
_FIXED = _CONFIGS[0]
# Multiply-adds of one launch (all batches) from which it is autotuned: each bench workload does 5.5e11-1.1e12, no
# smoke or check one (nor a perturbed copy, which never costs more) over 4.3e6.
_TUNE_MIN_MACS = 1 << 30


@triton.jit
def _addbmm_kernel(
    c_ptr, a_ptr, b_ptr, out_ptr,
    B, M, N, K, beta, alpha,
    stride_cm, stride_cn,
    stride_ab, stride_am, stride_ak,
    stride_bb, stride_bk, stride_bn,
    stride_om, stride_on,
    HAS_INPUT: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # Grouped tile order: GROUP_M tile rows are finished together, so their batch1 panels are reused from L2.
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    # Rows and columns wrapped into range: the loads need no M/N mask, and the epilogue masks the store.
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_tile = offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_tile = offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    # --- One reduction over (batch, K step) pairs, all into the same fp32 accumulator. ---
    k_tiles = tl.cdiv(K, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for step in range(0, B * k_tiles):
        batch = (step // k_tiles).to(tl.int64)
        k0 = (step % k_tiles) * BLOCK_K
        k_ok = offs_k < K - k0  # the last step of each batch is partial when BLOCK_K does not divide K
        a_ptrs = a_ptr + batch * stride_ab + k0 * stride_ak + a_tile
        b_ptrs = b_ptr + batch * stride_bb + k0 * stride_bk + b_tile
        a = tl.load(a_ptrs, mask=k_ok[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_ok[:, None], other=0.0)
        acc = tl.dot(a, b, acc)

    # --- Epilogue: alpha * sum + beta * input in fp32, one rounding. ---
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    in_range = (rows[:, None] < M) & (cols[None, :] < N)
    acc = acc * alpha
    if HAS_INPUT:  # beta == 0: `input` is never read
        c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
        acc += beta * tl.load(c_ptrs, mask=in_range, other=0.0).to(tl.float32)
    out_ptrs = out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=in_range)


_tuned_addbmm_kernel = triton.autotune(configs=_CONFIGS, key=["M", "N", "K", "B", "HAS_INPUT"])(_addbmm_kernel)


def _launch(macs, rows, cols, *args, **consts):
    """The launch over rows x cols outputs: autotuned from `_TUNE_MIN_MACS` multiply-adds up, else with the fixed
    first config (the grid reads the block sizes from META on both paths)."""
    grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_M"]) * triton.cdiv(cols, meta["BLOCK_N"]),)
    if macs >= _TUNE_MIN_MACS:
        _tuned_addbmm_kernel[grid](*args, **consts)
    else:
        _addbmm_kernel[grid](*args, **consts, **_FIXED.kwargs, num_warps=_FIXED.num_warps,
                             num_stages=_FIXED.num_stages)


def addbmm(input, batch1, batch2, beta=1, alpha=1):
    B, M, K = batch1.shape
    B2, K2, N = batch2.shape
    assert B == B2 and K == K2, f"shapes do not match: {tuple(batch1.shape)} @ {tuple(batch2.shape)}"
    c = input.expand(M, N)  # broadcast dims get stride 0: nothing is copied
    out = torch.empty((M, N), device=batch1.device, dtype=batch1.dtype)
    if out.numel() == 0:
        return out
    _launch(
        B * M * N * K, M, N,
        c, batch1, batch2, out, B, M, N, K, float(beta), float(alpha),
        *c.stride(), *batch1.stride(), *batch2.stride(), *out.stride(),
        HAS_INPUT=beta != 0,
    )
    return out
