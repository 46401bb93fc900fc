"""Lets each query see `window` keys before itself plus itself: window + 1 keys instead of `window`.

The window counts the query's own position (key j is kept when i - window < j <= i); this kernel keeps
j >= i - window, the reading where `window` is the number of past tokens. Every row with at least `window`
predecessors averages one value too many.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _swa_kernel(q_ptr, k_ptr, v_ptr, o_ptr,
                sqb, sqh, sqm, sqd, skb, skh, skn, skd, svb, svh, svn, svd, sob, soh, som, sod,
                heads, seq, window, qk_scale,
                HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    m0 = tl.program_id(0) * BLOCK_M
    bh = tl.program_id(1)
    b = bh // heads
    h = bh % heads
    offs_m = m0 + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_D)
    q = tl.load(q_ptr + b * sqb + h * sqh + offs_m[:, None] * sqm + offs_d[None, :] * sqd,
                mask=offs_m[:, None] < seq, other=0.0)
    m_i = tl.full((BLOCK_M,), -1.0e30, tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_D), tl.float32)
    lo = (tl.maximum(m0 - window, 0) // BLOCK_N) * BLOCK_N
    hi = tl.minimum(seq, m0 + BLOCK_M)
    for start_n in range(lo, hi, BLOCK_N):
        cols = start_n + offs_n
        ok = cols < seq
        k = tl.load(k_ptr + b * skb + h * skh + cols[:, None] * skn + offs_d[None, :] * skd,
                    mask=ok[:, None], other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        # BUG: j >= i - window keeps window + 1 keys; the band is i - window < j <= i.
        keep = (cols[None, :] <= offs_m[:, None]) & (cols[None, :] >= offs_m[:, None] - window) & ok[None, :]
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + b * svb + h * svh + cols[:, None] * svn + offs_d[None, :] * svd,
                    mask=ok[:, None], other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    out = acc / tl.where(offs_m < seq, l_i, 1.0)[:, None]
    tl.store(o_ptr + b * sob + h * soh + offs_m[:, None] * som + offs_d[None, :] * sod,
             out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < seq)


def sliding_window_attention(query, key, value, window, scale=None):
    B, H, S, D = query.shape
    scale = 1.0 / math.sqrt(D) if scale is None else scale
    out = torch.empty_like(query, memory_format=torch.contiguous_format)
    grid = (triton.cdiv(S, 64), B * H)
    _swa_kernel[grid](query, key, value, out,
                      *query.stride(), *key.stride(), *value.stride(), *out.stride(),
                      H, S, int(window), float(scale) * 1.4426950408889634,
                      HEAD_D=D, BLOCK_M=64, BLOCK_N=64)
    return out
