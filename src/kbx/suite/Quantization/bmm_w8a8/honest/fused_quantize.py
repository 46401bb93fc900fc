"""An honest bmm_w8a8 that quantizes both operands inside the batched GEMM from precomputed vector scales.

A first kernel, launched once per operand, finds the absolute maximum of every vector along K (rows of
`input`, columns of `mat2`, through their strides: one program per (batch, vector)) and stores the scale
amax / 127 and its reciprocal (1 and 1 for an all-zero vector). The GEMM kernel, one program per (row tile,
column tile, batch), loads fp16/bf16 tiles of both operands, quantizes them in registers (multiply by the
reciprocal, round half to even with the 1.5 * 2^23 magic-number trick, clamp to +-127, cast to int8) and
accumulates `tl.dot` of the int8 tiles in int32; the epilogue scales by a_s and c_s in fp32 and rounds once.
No quantized copy is written (the suite's kernel quantizes both operands into int8 tensors first).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _vector_scales(x_ptr, scale_ptr, inv_ptr, V, K, sb, sv, sk, BLOCK_K: tl.constexpr):
    idx = tl.program_id(0).to(tl.int64)  # = batch * V + vector
    base = x_ptr + (idx // V) * sb + (idx % V) * sv
    lanes = tl.arange(0, BLOCK_K)
    amax = tl.zeros((BLOCK_K,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = (k0 + lanes).to(tl.int64)
        x = tl.load(base + kk * sk, mask=kk < K, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.abs(x))
    m = tl.max(amax, axis=0)
    zero = m == 0.0
    tl.store(scale_ptr + idx, tl.where(zero, 1.0, m / 127.0))
    tl.store(inv_ptr + idx, tl.where(zero, 1.0, 127.0 / tl.where(zero, 1.0, m)))


@triton.jit
def _to_int8(x, inv):
    y = x * inv
    r = (y + 12582912.0) - 12582912.0  # 1.5 * 2^23: rounds |y| < 2^22 to an integer, ties to even
    return tl.minimum(tl.maximum(r, -127.0), 127.0).to(tl.int8)


@triton.jit
def _fused_bmm(a_ptr, b_ptr, as_ptr, ainv_ptr, cs_ptr, cinv_ptr, out_ptr, M, N, K,
               sab, sam, sak, sbb, sbk, sbn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    batch = tl.program_id(2).to(tl.int64)
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    m_ok = rm < M
    n_ok = rn < N
    a_inv = tl.load(ainv_ptr + batch * M + rm, mask=m_ok, other=1.0)[:, None]
    c_inv = tl.load(cinv_ptr + batch * N + rn, mask=n_ok, other=1.0)[None, :]
    a_rows = a_ptr + batch * sab + rm.to(tl.int64)[:, None] * sam
    b_cols = b_ptr + batch * sbb + rn.to(tl.int64)[None, :] * sbn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        k_ok = kk < K
        a = tl.load(a_rows + kk[None, :] * sak, mask=m_ok[:, None] & k_ok[None, :], other=0.0).to(tl.float32)
        b = tl.load(b_cols + kk[:, None] * sbk, mask=k_ok[:, None] & n_ok[None, :], other=0.0).to(tl.float32)
        acc = tl.dot(_to_int8(a, a_inv), _to_int8(b, c_inv), acc, out_dtype=tl.int32)
    a_s = tl.load(as_ptr + batch * M + rm, mask=m_ok, other=0.0)
    c_s = tl.load(cs_ptr + batch * N + rn, mask=n_ok, other=0.0)
    out = acc.to(tl.float32) * a_s[:, None] * c_s[None, :]
    tl.store(out_ptr + batch * M * N + rm.to(tl.int64)[:, None] * N + rn[None, :], out.to(out_ptr.dtype.element_ty),
             mask=m_ok[:, None] & n_ok[None, :])


def _scales(x, B, V, K, sb, sv, sk):
    scale = torch.empty((B * V,), dtype=torch.float32, device=x.device)
    inv = torch.empty_like(scale)
    if B * V > 0:
        _vector_scales[(B * V,)](x, scale, inv, V, K, sb, sv, sk,
                                 BLOCK_K=min(1024, triton.next_power_of_2(max(K, 16))))
    return scale, inv


def bmm_w8a8(input, mat2):
    B, M, K = input.shape
    N = mat2.shape[2]
    sab, sam, sak = input.stride()
    sbb, sbk, sbn = mat2.stride()
    a_s, a_inv = _scales(input, B, M, K, sab, sam, sak)
    c_s, c_inv = _scales(mat2, B, N, K, sbb, sbn, sbk)
    out = torch.empty((B, M, N), dtype=input.dtype, device=input.device)
    if out.numel() > 0:
        BM, BN, BK = 64, 64, 64
        _fused_bmm[(triton.cdiv(M, BM), triton.cdiv(N, BN), B)](
            input, mat2, a_s, a_inv, c_s, c_inv, out, M, N, K, sab, sam, sak, sbb, sbk, sbn,
            BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
    return out
