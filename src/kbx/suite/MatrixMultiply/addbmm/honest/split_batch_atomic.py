"""An honest addbmm that splits the batch sum across programs: fp32 partial sums added with atomics.

The grid's third axis cuts the B products into SPLIT interleaved sets (program z takes batches z, z + SPLIT,
...). Each (row tile, column tile, set) program runs a plain row-major tile loop: for each of its batches a
`tl.dot` loop over K (fp16/bf16 operands, fp32 accumulator), all into one fp32 tile, which it adds into a
zeroed fp32 (M, N) buffer with `tl.atomic_add`. A second, elementwise kernel over (M, N) forms
alpha * sum + beta * input in fp32 (input read through its broadcast strides, and not at all when beta is 0)
and rounds once. The suite's kernel instead walks every (batch, K step) in one program with a grouped tile order.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _partial_sums(a_ptr, b_ptr, acc_ptr, B, M, N, K, SPLIT, sab, sam, sak, sbb, sbk, sbn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    first = tl.program_id(2).to(tl.int64)
    a_base = a_ptr + first * sab  # pointers advance by SPLIT batches: 64-bit arithmetic throughout
    b_base = b_ptr + first * sbb
    for _ in range(tl.program_id(2), B, SPLIT):
        for k0 in range(0, K, BLOCK_K):
            kk = k0 + rk
            k_ok = kk < K
            a = tl.load(a_base + rm[:, None] * sam + kk[None, :] * sak, mask=m_ok[:, None] & k_ok[None, :], other=0.0)
            b = tl.load(b_base + kk[:, None] * sbk + rn[None, :] * sbn, mask=k_ok[:, None] & n_ok[None, :], other=0.0)
            acc = tl.dot(a, b, acc)
        a_base += SPLIT * sab
        b_base += SPLIT * sbb
    tl.atomic_add(acc_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], acc, mask=m_ok[:, None] & n_ok[None, :])


@triton.jit
def _epilogue(acc_ptr, c_ptr, out_ptr, M, N, beta, alpha, scm, scn,
              HAS_INPUT: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    ok = (rm[:, None] < M) & (rn[None, :] < N)
    flat = rm.to(tl.int64)[:, None] * N + rn[None, :]
    v = alpha * tl.load(acc_ptr + flat, mask=ok, other=0.0)
    if HAS_INPUT:
        v += beta * tl.load(c_ptr + rm[:, None] * scm + rn[None, :] * scn, mask=ok, other=0.0).to(tl.float32)
    tl.store(out_ptr + flat, v.to(out_ptr.dtype.element_ty), mask=ok)


def addbmm(input, batch1, batch2, beta=1, alpha=1):
    B, M, K = batch1.shape
    N = batch2.shape[2]
    out = torch.empty((M, N), dtype=batch1.dtype, device=batch1.device)
    if out.numel() == 0:
        return out
    acc = torch.zeros((M, N), dtype=torch.float32, device=batch1.device)
    BM, BN, BK = 64, 64, 32
    split = max(1, min(B, 8))
    _partial_sums[(triton.cdiv(M, BM), triton.cdiv(N, BN), split)](
        batch1, batch2, acc, B, M, N, K, split, *batch1.stride(), *batch2.stride(),
        BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    c = input.expand(M, N)
    _epilogue[(triton.cdiv(M, 32), triton.cdiv(N, 32))](acc, c, out, M, N, float(beta), float(alpha), *c.stride(),
                                                       HAS_INPUT=beta != 0, BLOCK_M=32, BLOCK_N=32)
    return out
