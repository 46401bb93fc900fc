"""Takes the scale of each row of `input` and column of `mat2` from its first 1024 elements only.

The solution with whole vectors in registers up to 1024 elements, and for longer ones a maximum read from the first
block while the quantizing loop walks the whole vector: vectors up to 1024 long are quantized exactly, longer ones
get a scale too small for their largest values, which clamp to +-127. It passed every workload whose K is at most
1024 (check_long_k's 700 included; the GPU bench's 2048 would catch it); `check_late_peak_k_5003`, whose vectors
have their largest magnitude past element 4096, catches it on the CPU, and so does its perturbed copy (K at least
about 2,500).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _round_half_even(y):
    """Round fp32 to the nearest integer, ties to the even neighbour (torch.round); exact for |y| < 2^23."""
    a = tl.abs(y)
    f = tl.floor(a)
    frac = a - f  # exact
    f_is_odd = f - 2.0 * tl.floor(0.5 * f)  # 1.0 when f is odd, else 0.0
    r = f + tl.where(frac > 0.5, 1.0, 0.0) + tl.where(frac == 0.5, f_is_odd, 0.0)
    return tl.where(y < 0, -r, r)


@triton.jit
def _quantize(x, scale):
    q = _round_half_even(tl.math.div_rn(x, scale))
    return tl.minimum(tl.maximum(q, -127.0), 127.0).to(tl.int8)


@triton.jit
def _quantize_kernel(
    x_ptr, q_ptr, scale_ptr, R, K, stride_xb, stride_xr, stride_xk,
    BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, ONE_BLOCK: tl.constexpr,
):
    b = tl.program_id(1).to(tl.int64)
    vecs = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    vec_ok = vecs < R
    x_vecs = x_ptr + b * stride_xb + vecs[:, None].to(tl.int64) * stride_xr
    q_vecs = q_ptr + (b * R + vecs[:, None]) * K
    offs = tl.arange(0, BLOCK_K)
    if ONE_BLOCK:
        mask = vec_ok[:, None] & (offs[None, :] < K)
        x = tl.load(x_vecs + offs[None, :] * stride_xk, mask=mask, other=0.0).to(tl.float32)
        amax = tl.max(tl.abs(x), axis=1)
    else:
        # The bug: the maximum of the first block only (the loop below quantizes the whole vector).
        x = tl.load(x_vecs + offs[None, :] * stride_xk, mask=vec_ok[:, None], other=0.0).to(tl.float32)
        amax = tl.max(tl.abs(x), axis=1)
    scale = tl.math.div_rn(amax, tl.full((BLOCK_R,), 127.0, tl.float32))
    scale = tl.where(amax == 0.0, 1.0, scale)  # an all-zero vector quantizes to zeros with scale 1
    tl.store(scale_ptr + b * R + vecs, scale, mask=vec_ok)
    if ONE_BLOCK:
        tl.store(q_vecs + offs[None, :], _quantize(x, scale[:, None]), mask=mask)
    else:
        for k0 in range(0, K, BLOCK_K):
            cols = k0 + offs
            mask = vec_ok[:, None] & (cols[None, :] < K)
            x = tl.load(x_vecs + cols[None, :] * stride_xk, mask=mask, other=0.0).to(tl.float32)
            tl.store(q_vecs + cols[None, :], _quantize(x, scale[:, None]), mask=mask)


_CONFIGS = [
    # The first config is the fixed one of small launches (and the only one the CPU interpreter runs).
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8}, num_stages=4, num_warps=4),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 128, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8}, num_stages=3, num_warps=8),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
]
_FIXED = _CONFIGS[0]
# Multiply-adds of one GEMM launch (all batches) from which it is autotuned: the bench does 2.7e11, no smoke or
# check workload (nor a perturbed copy, which never costs more) over 8.3e5.
_TUNE_MIN_MACS = 1 << 30


@triton.jit
def _int8_bmm_kernel(
    xq_ptr, yq_ptr, xs_ptr, ys_ptr, out_ptr, M, N, K,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    pid = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    # xq[b] is (M, K) and yq[b] is (N, K), both K-contiguous; B[k, n] = yq[b, n, k]. Rows/columns past M or N
    # are wrapped into range for the loads and dropped by the masked store.
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = xq_ptr + (b * M + offs_m[:, None]) * K + offs_k[None, :]
    b_ptrs = yq_ptr + (b * N + offs_n[None, :]) * K + offs_k[:, None]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0)
        bt = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0)
        acc = tl.dot(a, bt, acc, out_dtype=tl.int32)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K

    # Epilogue: (acc * a_s[b, m]) * c_s[b, n] in fp32, rounded once to the output dtype.
    a_s = tl.load(xs_ptr + b * M + offs_m)
    c_s = tl.load(ys_ptr + b * N + offs_n)
    out = acc.to(tl.float32) * a_s[:, None] * c_s[None, :]
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    out_ptrs = out_ptr + (b * M + rows[:, None]) * N + cols[None, :]
    tl.store(out_ptrs, out.to(out_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


_tuned_int8_bmm_kernel = triton.autotune(configs=_CONFIGS, key=["M", "N", "K"])(_int8_bmm_kernel)


def _launch_bmm(macs, rows, cols, batches, *args):
    """The GEMM launch over `batches` products of rows x cols: autotuned from `_TUNE_MIN_MACS` multiply-adds up,
    else with the fixed first config (the grid reads the block sizes from META on both paths)."""
    grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_M"]) * triton.cdiv(cols, meta["BLOCK_N"]), batches)
    if macs >= _TUNE_MIN_MACS:
        _tuned_int8_bmm_kernel[grid](*args)
    else:
        _int8_bmm_kernel[grid](*args, **_FIXED.kwargs, num_warps=_FIXED.num_warps, num_stages=_FIXED.num_stages)


def _quantize_vectors(x, B, R, K, stride_b, stride_r, stride_k):
    """int8 (B, R, K) K-contiguous and fp32 (B, R) scales of the vectors x[b, r, :] given by the strides."""
    q = torch.empty((B, R, K), device=x.device, dtype=torch.int8)
    scale = torch.empty((B, R), device=x.device, dtype=torch.float32)
    BLOCK_K = min(1024, triton.next_power_of_2(max(K, 16)))  # whole vectors in registers up to 1024
    BLOCK_R = max(1, 4096 // BLOCK_K)
    one_block = K <= BLOCK_K
    _quantize_kernel[(triton.cdiv(R, BLOCK_R), B)](
        x, q, scale, R, K, stride_b, stride_r, stride_k,
        BLOCK_R=BLOCK_R, BLOCK_K=BLOCK_K, ONE_BLOCK=one_block, num_warps=8,
    )
    return q, scale


def bmm_w8a8(input, mat2):
    B, M, K = input.shape
    B2, K2, N = mat2.shape
    assert B == B2 and K == K2, f"input {tuple(input.shape)} and mat2 {tuple(mat2.shape)} do not chain"
    out = torch.empty((B, M, N), device=input.device, dtype=input.dtype)
    if B == 0 or M == 0 or N == 0:
        return out
    xq, a_s = _quantize_vectors(input, B, M, K, input.stride(0), input.stride(1), input.stride(2))
    yq, c_s = _quantize_vectors(mat2, B, N, K, mat2.stride(0), mat2.stride(2), mat2.stride(1))
    _launch_bmm(B * M * N * K, M, N, B, xq, yq, a_s, c_s, out, M, N, K)
    return out
