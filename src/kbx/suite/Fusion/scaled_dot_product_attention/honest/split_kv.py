"""An honest scaled_dot_product_attention with the keys split across programs (flash-decoding style) and a combine.

The key/value sequence is cut into NUM_SPLITS contiguous chunks. The first kernel gives each (query block, batch
and head, chunk) one program that runs the online softmax over its chunk in the exp2 domain (scores
Q K^T * (log2 e / sqrt D) from tl.dot in fp32, P rounded to fp16 for the P V dot) and writes its unnormalised fp32
partials: the running maximum m, the denominator l and the BLOCK_M x D numerator. Rows that see none of a chunk's
keys (causal) leave m = -inf, l = 0. The second kernel merges the chunks per row, M = max m_s,
l = sum l_s 2^(m_s - M), acc = sum acc_s 2^(m_s - M), and writes acc / l in fp16; each of its programs merges
BLOCK_R rows (a BLOCK_R x NUM_SPLITS x D tile of 4096 partials).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _partial_kernel(q_ptr, k_ptr, v_ptr, m_ptr, l_ptr, acc_ptr, H, SQ, SK, chunk, qk_scale,
                    sqb, sqh, sqs, sqd, skb, skh, sks, skd, svb, svh, svs, svd,
                    IS_CAUSAL: tl.constexpr, D: tl.constexpr, BLOCK_D: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    split = tl.program_id(2)
    nsplit = tl.num_programs(2)
    b = (bh // H).to(tl.int64)
    h = (bh % H).to(tl.int64)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, BLOCK_D)
    dmask = rd < D
    q = tl.load(q_ptr + b * sqb + h * sqh + rm[:, None] * sqs + rd[None, :] * sqd,
                mask=(rm[:, None] < SQ) & dmask[None, :], other=0.0)
    k_base = k_ptr + b * skb + h * skh
    v_base = v_ptr + b * svb + h * svh
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    lo = split * chunk
    hi = tl.minimum(lo + chunk, SK)
    if IS_CAUSAL:
        hi = tl.minimum(hi, (pid_m + 1) * BLOCK_M)
    for n0 in range(lo, hi, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        kt = tl.load(k_base + rn[None, :] * sks + rd[:, None] * skd, mask=(rn[None, :] < hi) & dmask[:, None],
                     other=0.0)
        s = tl.dot(q, kt) * qk_scale
        keep = rn[None, :] < hi
        if IS_CAUSAL:
            keep = keep & (rn[None, :] <= rm[:, None])
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        # rows with nothing visible yet keep m = -inf: shift by 0 so no lane computes -inf - (-inf)
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.math.exp2(m_i - shift)
        p = tl.math.exp2(s - shift[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_base + rn[:, None] * svs + rd[None, :] * svd, mask=(rn[:, None] < hi) & dmask[None, :],
                    other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    row = (bh.to(tl.int64) * SQ + rm) * nsplit + split
    ok = rm < SQ
    tl.store(m_ptr + row, m_i, mask=ok)
    tl.store(l_ptr + row, l_i, mask=ok)
    tl.store(acc_ptr + row[:, None] * BLOCK_D + rd[None, :], acc, mask=ok[:, None])


@triton.jit
def _combine_kernel(m_ptr, l_ptr, acc_ptr, o_ptr, R, H, SQ, NSPLIT, sob, soh, sos, sod,
                    D: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_S: tl.constexpr, BLOCK_R: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)  # BLOCK_R (batch, head, query) rows
    r_ok = r < R
    r = r.to(tl.int64)
    b = r // (H * SQ)
    h = (r // SQ) % H
    i = r % SQ
    rs = tl.arange(0, BLOCK_S)
    rd = tl.arange(0, BLOCK_D)
    smask = r_ok[:, None] & (rs[None, :] < NSPLIT)
    part = r[:, None] * NSPLIT + rs[None, :]
    m = tl.load(m_ptr + part, mask=smask, other=float("-inf"))
    l_s = tl.load(l_ptr + part, mask=smask, other=0.0)
    a = tl.load(acc_ptr + part[:, :, None] * BLOCK_D + rd[None, None, :], mask=smask[:, :, None], other=0.0)
    big = tl.max(m, axis=1)  # finite on a real row: every row sees key 0
    w = tl.where(m == float("-inf"), 0.0, tl.math.exp2(m - big[:, None]))
    total = tl.where(r_ok, tl.sum(l_s * w, axis=1), 1.0)
    out = tl.sum(a * w[:, :, None], axis=1) / total[:, None]
    tl.store(o_ptr + (b * sob + h * soh + i * sos)[:, None] + rd[None, :] * sod, out.to(o_ptr.dtype.element_ty),
             mask=r_ok[:, None] & (rd[None, :] < D))


def scaled_dot_product_attention(query, key, value, is_causal=False):
    B, H, SQ, D = query.shape
    SK = key.shape[2]
    out = torch.empty((B, H, SQ, D), dtype=query.dtype, device=query.device)
    BLOCK_M, BLOCK_N = 64, 64
    BLOCK_D = max(16, triton.next_power_of_2(D))
    nsplit = min(4, triton.cdiv(SK, BLOCK_N))
    chunk = triton.cdiv(triton.cdiv(SK, nsplit), BLOCK_N) * BLOCK_N
    nsplit = triton.cdiv(SK, chunk)
    m = torch.empty((B * H * SQ * nsplit,), dtype=torch.float32, device=query.device)
    l_ = torch.empty_like(m)
    acc = torch.empty((B * H * SQ * nsplit, BLOCK_D), dtype=torch.float32, device=query.device)
    qk_scale = 1.4426950408889634 / math.sqrt(D)
    grid = (triton.cdiv(SQ, BLOCK_M), B * H, nsplit)
    _partial_kernel[grid](query, key, value, m, l_, acc, H, SQ, SK, chunk, qk_scale,
                          *query.stride(), *key.stride(), *value.stride(),
                          IS_CAUSAL=bool(is_causal), D=D, BLOCK_D=BLOCK_D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    BLOCK_S = triton.next_power_of_2(nsplit)
    BLOCK_R = 4096 // (BLOCK_S * BLOCK_D)
    R = B * H * SQ
    _combine_kernel[(triton.cdiv(R, BLOCK_R),)](m, l_, acc, out, R, H, SQ, nsplit, *out.stride(),
                                                D=D, BLOCK_D=BLOCK_D, BLOCK_S=BLOCK_S, BLOCK_R=BLOCK_R)
    return out
