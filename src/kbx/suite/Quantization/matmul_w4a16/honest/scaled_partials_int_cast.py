"""An honest matmul_w4a16 that keeps the int4 weights exact in the dot and scales each group's fp32 partial sum,
the nibbles cast straight from int32 to the dtype (scaled_partials.py goes through fp32; the CPU interpreter
once turned this cast into NaNs for bf16, 2026-11-28).

Each program owns a (BLOCK_M x BLOCK_N) output tile and walks K in steps of BLOCK_K = 32 (every group size is
a multiple, so a step lies in one group). For a step it gathers the weight bytes at k // 2 and picks the nibble
by the parity of k (shift (k & 1) * 4), sign-extends it and converts the integer, exactly, to the activations'
dtype; `tl.dot` of the activation tile with these raw integers gives an fp32 partial sum, which is multiplied
by the group's scale and added to the fp32 accumulator. The weights are thus never rounded to fp16/bf16 after
scaling (the task's reference rounds the dequantized weights; its statement measures this variant at 3.5x
below the bound). The suite's kernel instead dequantizes each nibble plane to the dtype and splits K into even
and odd columns.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _w4a16_partials(x_ptr, qw_ptr, s_ptr, out_ptr, M, N, K, group_size, sxm, sxk, sqn, sqk, ssn, ssg,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N
    x_rows = x_ptr + rm.to(tl.int64)[:, None] * sxm
    q_cols = qw_ptr + rn.to(tl.int64)[None, :] * sqn
    s_cols = s_ptr + rn.to(tl.int64) * ssn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        x = tl.load(x_rows + kk[None, :] * sxk, mask=m_ok[:, None], other=0.0)
        byte = tl.load(q_cols + (kk // 2)[:, None] * sqk, mask=n_ok[None, :], other=0).to(tl.int32)
        nib = (byte >> ((kk & 1) * 4)[:, None]) & 15
        w = tl.where(nib >= 8, nib - 16, nib).to(x_ptr.dtype.element_ty)  # -8..7, exact in fp16/bf16
        partial = tl.dot(x, w)
        scale = tl.load(s_cols + (k0 // group_size) * ssg, mask=n_ok, other=0.0).to(tl.float32)
        acc += partial * scale[None, :]
    tl.store(out_ptr + rm.to(tl.int64)[:, None] * N + rn[None, :], acc.to(out_ptr.dtype.element_ty),
             mask=m_ok[:, None] & n_ok[None, :])


def matmul_w4a16(input, qweight, scales, group_size):
    M, K = input.shape
    N = qweight.shape[0]
    BLOCK_K = 32
    assert K % BLOCK_K == 0 and group_size % BLOCK_K == 0, "group_size must be a multiple of 32"
    out = torch.empty((M, N), dtype=input.dtype, device=input.device)
    if M > 0 and N > 0:
        BM, BN = 32, 64
        _w4a16_partials[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
            input, qweight, scales, out, M, N, K, group_size, *input.stride(), *qweight.stride(), *scales.stride(),
            BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BLOCK_K)
    return out
