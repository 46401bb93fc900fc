"""Reads each row's absolute maximum from one block of at most 4096 elements (no loop over K).

The solution with its first sweep cut to a single block, widened to 4096 so that one block covers "typical"
hidden sizes: a common way to keep a row's reduction in registers. Rows up to 4096 are quantized exactly; past that
the row maximum comes from the first 4096 elements only, the scale is too small and the values beyond it are
clamped to +-127. It passed every workload whose K is at most 4096 (check_late_peak_long_k's 2501 included);
`check_late_peak_k_5003`, whose largest activation of each row sits past element 4096, catches it.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _round_half_even(y):
    """Round fp32 values to the nearest integer, ties to even (torch.round); exact for |y| < 2^23."""
    a = tl.abs(y)
    f = tl.floor(a)
    d = a - f  # the fractional part, exact
    odd = f - 2.0 * tl.floor(f * 0.5)  # 1.0 when f is odd
    r = f + tl.where(d > 0.5, 1.0, 0.0) + tl.where(d == 0.5, odd, 0.0)
    return tl.where(y < 0, -r, r)


@triton.jit
def _quantize_rows_kernel(
    x_ptr, q_ptr, scale_ptr, R, K, stride_xr, stride_xk, stride_qr,
    BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    row_ok = rows < R
    x_rows = x_ptr + rows.to(tl.int64)[:, None] * stride_xr
    q_rows = q_ptr + rows.to(tl.int64)[:, None] * stride_qr
    offs = tl.arange(0, BLOCK_K)

    # Sweep 1: each row's absolute maximum, from its first block (the bug: no loop over K).
    mask = row_ok[:, None] & (offs[None, :] < K)
    x = tl.load(x_rows + offs[None, :] * stride_xk, mask=mask, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), axis=1)
    scale = tl.math.div_rn(amax, tl.full((BLOCK_R,), 127.0, tl.float32))
    scale = tl.where(scale == 0.0, 1.0, scale)  # an all-zero row quantizes to zeros with scale 1
    tl.store(scale_ptr + rows, scale, mask=row_ok)

    # Sweep 2: q = clamp(round_half_even(x / scale), -127, 127) as int8.
    scale_2d = tl.broadcast_to(scale[:, None], (BLOCK_R, BLOCK_K))
    for k0 in range(0, K, BLOCK_K):
        cols = k0 + offs
        mask = row_ok[:, None] & (cols[None, :] < K)
        x = tl.load(x_rows + cols[None, :] * stride_xk, mask=mask, other=0.0).to(tl.float32)
        q = _round_half_even(tl.math.div_rn(x, scale_2d))
        q = tl.minimum(tl.maximum(q, -127.0), 127.0)
        tl.store(q_rows + cols[None, :], q.to(tl.int8), mask=mask)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 128, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _int8_gemm_kernel(
    xq_ptr, wq_ptr, xs_ptr, ws_ptr, out_ptr,
    M, N, K,
    stride_xm, stride_wn, stride_om,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # Grouped tile order: GROUP_M rows of tiles sweep the columns together so shared panels stay in L2.
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    # xq is (M, K) and wq is (N, K), both K-contiguous; B[k, n] = wq[n, k].
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = xq_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
    b_ptrs = wq_ptr + offs_k[:, None] + offs_n[None, :] * stride_wn

    # Exact integer dot products: int8 x int8 -> int32 on the tensor cores.
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0)
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K

    # Epilogue: out = (acc * a_s[m]) * w_s[n] in fp32, rounded once to fp16.
    a_s = tl.load(xs_ptr + offs_m)  # offs_m/offs_n are the wrapped, in-range indices the loads used
    w_s = tl.load(ws_ptr + offs_n)
    out = acc.to(tl.float32) * a_s[:, None] * w_s[None, :]
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    out_ptrs = out_ptr + rows[:, None] * stride_om + cols[None, :]
    tl.store(out_ptrs, out.to(out_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


def _quantize_rows(x):
    """Per-row symmetric int8 quantization of a 2-D tensor: (int8 values, fp32 scale per row)."""
    R, K = x.shape
    q = torch.empty((R, K), device=x.device, dtype=torch.int8)
    scale = torch.empty((R,), device=x.device, dtype=torch.float32)
    BLOCK_R = 16
    BLOCK_K = min(4096, triton.next_power_of_2(max(K, 16)))
    _quantize_rows_kernel[(triton.cdiv(R, BLOCK_R),)](
        x, q, scale, R, K, x.stride(0), x.stride(1), q.stride(0), BLOCK_R=BLOCK_R, BLOCK_K=BLOCK_K, num_warps=8,
    )
    return q, scale


def matmul_w8a8(input, weight):
    M, K = input.shape
    N, K2 = weight.shape
    assert K == K2, f"input {tuple(input.shape)} and weight {tuple(weight.shape)} disagree on K"
    xq, a_s = _quantize_rows(input)
    wq, w_s = _quantize_rows(weight)
    out = torch.empty((M, N), device=input.device, dtype=torch.float16)
    if M > 0 and N > 0:
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
        _int8_gemm_kernel[grid](xq, wq, a_s, w_s, out, M, N, K, xq.stride(0), wq.stride(0), out.stride(0))
    return out
