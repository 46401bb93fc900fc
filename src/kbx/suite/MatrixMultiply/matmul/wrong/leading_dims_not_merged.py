"""Runs a (B, M, K) x (K, N) product whose `other` is shared as one tall (B*M, K) product without checking that
A's batches are stacked rows.

Row r of the tall product is read at r * stride(-2) of A, right when A's batch stride is M times its row stride
(every contiguous input, a strided last dim). A 3-D input holding the first M rows of longer sequences
(`a[:, :M]`, batch stride not M rows) is read from the wrong rows after the first batch entry; the solution
merges only when `stride(0) == M * stride(1)`.
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
        triton.Config({"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=8),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_M": 8}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def _matmul_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_ab, stride_am, stride_ak,
    stride_bb, stride_bk, stride_bn,
    stride_cb, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    # --- Which output tile is ours: grouped ("swizzled") order for L2 reuse. ---
    pid = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)  # 64-bit: batch * stride can pass 2^31 elements
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)  # the last group may be short
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    # --- Pointers to the first K step of our A rows and B columns. ---
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M  # wrapped: loads never leave the matrix
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + batch * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    # --- Main loop over K: fp16 tiles in, fp32 accumulator. ---
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K  # only the last step has k_left < BLOCK_K
        a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    # --- Epilogue: round once to fp16 and store the in-range part of the tile. ---
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + batch * stride_cb + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rows[:, None] < M) & (cols[None, :] < N))


def matmul(input, other):
    a, b = input, other
    # torch.matmul promotes 1-D operands to matrices and drops the added dimension from the result.
    squeeze_m, squeeze_n = a.dim() == 1, b.dim() == 1
    if squeeze_m:
        a = a.unsqueeze(0)
    if squeeze_n:
        b = b.unsqueeze(-1)
    M, K = a.shape[-2:]
    N = b.shape[-1]
    assert b.shape[-2] == K, f"inner dimensions differ: {tuple(input.shape)} @ {tuple(other.shape)}"

    # Broadcast the batch dimensions; expand() gives broadcast dims stride 0, so nothing is copied.
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = a.expand(*batch, M, K).reshape(-1, M, K)
    b = b.expand(*batch, K, N).reshape(-1, K, N)
    nbatch = a.shape[0]
    out = torch.empty((nbatch, M, N), device=a.device, dtype=a.dtype)

    sab, sam, sak = a.stride()
    sbb, sbk, sbn = b.stride()
    scb, scm, scn = out.stride()
    rows = M
    if nbatch > 1 and sbb == 0:  # A's batches assumed to be stacked rows
        # Every batch uses the same B and A's batches are stacked rows: one tall (B*M, K) x (K, N) product.
        rows, nbatch = nbatch * M, 1
    if rows > 0 and N > 0:
        grid = lambda meta: (triton.cdiv(rows, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]), nbatch)
        _matmul_kernel[grid](
            a, b, out, rows, N, K,
            sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
        )

    out = out.reshape(*batch, M, N)
    if squeeze_m:
        out = out.squeeze(-2)
    if squeeze_n:
        out = out.squeeze(-1)
    return out
