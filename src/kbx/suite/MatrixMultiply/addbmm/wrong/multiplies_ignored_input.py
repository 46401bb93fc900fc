"""Always computes `beta * input`, also when beta is 0.

Arithmetically the same for finite inputs, but torch defines addbmm with beta = 0 as ignoring `input`: 0 * NaN
and 0 * inf are NaN, so NaN in an input that should have been ignored reaches the output.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.autotune(
    configs=[
        # The CPU interpreter runs only the first config and pays for the whole tile: a small one leads.
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=3, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K", "B"],
)
@triton.jit
def _addbmm_kernel(
    c_ptr, a_ptr, b_ptr, out_ptr,
    B, M, N, K, beta, alpha,
    stride_cm, stride_cn,
    stride_ab, stride_am, stride_ak,
    stride_bb, stride_bk, stride_bn,
    stride_om, stride_on,
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
    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    acc += beta * tl.load(c_ptrs, mask=in_range, other=0.0).to(tl.float32)
    out_ptrs = out_ptr + rows[:, None] * stride_om + cols[None, :] * stride_on
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=in_range)


def addbmm(input, batch1, batch2, beta=1, alpha=1):
    B, M, K = batch1.shape
    B2, K2, N = batch2.shape
    assert B == B2 and K == K2, f"shapes do not match: {tuple(batch1.shape)} @ {tuple(batch2.shape)}"
    c = input.expand(M, N)  # broadcast dims get stride 0: nothing is copied
    out = torch.empty((M, N), device=batch1.device, dtype=batch1.dtype)
    if out.numel() == 0:
        return out
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
    _addbmm_kernel[grid](
        c, batch1, batch2, out, B, M, N, K, float(beta), float(alpha),
        *c.stride(), *batch1.stride(), *batch2.stride(), *out.stride(),
    )
    return out
