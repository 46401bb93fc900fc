"""An honest sliding_window_attention: flash attention over the band's key blocks only, natural exp, -inf guard.

One program per BLOCK_M queries of one (batch, head). Its rows see keys i - window + 1 .. i, so it visits only the
key blocks from the first row's earliest key to its last row's diagonal, masks every block with the band, and
keeps the online softmax in fp32 with natural exp: m_new = max(m, rowmax S), P = exp(S - m_new),
l = l exp(m - m_new) + rowsum P, acc = acc exp(m - m_new) + P V (P rounded to the value dtype for the dot).
A row may see nothing in a block (the band starts further on), so while its maximum is still -inf it shifts by
0 instead. The output is acc / l.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _band_attention(q_ptr, k_ptr, v_ptr, o_ptr, H, SEQ, window, scale,
                    sqb, sqh, sqs, sqd, skb, skh, sks, skd, svb, svh, svs, svd, sob, soh, sos, sod,
                    D: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    b = (bh // H).to(tl.int64)
    h = (bh % H).to(tl.int64)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, BLOCK_D)
    dmask = rd < D
    q = tl.load(q_ptr + b * sqb + h * sqh + rm[:, None] * sqs + rd[None, :] * sqd,
                mask=(rm[:, None] < SEQ) & dmask[None, :], other=0.0)
    k_base = k_ptr + b * skb + h * skh
    v_base = v_ptr + b * svb + h * svh
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    lo = tl.maximum(pid_m * BLOCK_M - window + 1, 0)
    lo = (lo // BLOCK_N) * BLOCK_N
    hi = tl.minimum((pid_m + 1) * BLOCK_M, SEQ)
    for n0 in range(lo, hi, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        kt = tl.load(k_base + rn[None, :] * sks + rd[:, None] * skd, mask=(rn[None, :] < SEQ) & dmask[:, None],
                     other=0.0)
        s = tl.dot(q, kt) * scale
        band = (rn[None, :] <= rm[:, None]) & (rn[None, :] > rm[:, None] - window) & (rn[None, :] < SEQ)
        s = tl.where(band, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.exp(m_i - shift)
        p = tl.exp(s - shift[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_base + rn[:, None] * svs + rd[None, :] * svd, mask=(rn[:, None] < SEQ) & dmask[None, :],
                    other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    # rows past SEQ saw nothing (l = 0); they are not stored
    out = acc / tl.where(l_i > 0.0, l_i, 1.0)[:, None]
    tl.store(o_ptr + b * sob + h * soh + rm[:, None] * sos + rd[None, :] * sod, out.to(o_ptr.dtype.element_ty),
             mask=(rm[:, None] < SEQ) & dmask[None, :])


def sliding_window_attention(query, key, value, window, scale=None):
    B, H, SEQ, D = query.shape
    scale = 1.0 / math.sqrt(D) if scale is None else scale
    out = torch.empty((B, H, SEQ, D), dtype=query.dtype, device=query.device)
    BLOCK_M, BLOCK_N = 32, 32
    grid = (triton.cdiv(SEQ, BLOCK_M), B * H)
    _band_attention[grid](query, key, value, out, H, SEQ, int(window), float(scale),
                          *query.stride(), *key.stride(), *value.stride(), *out.stride(),
                          D=D, BLOCK_D=max(16, triton.next_power_of_2(D)), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
