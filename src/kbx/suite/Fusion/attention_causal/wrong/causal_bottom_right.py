"""Aligns the causal mask to the bottom-right corner (the flash-attention library convention).

Query i is allowed keys j <= i + (Sk - Sq). For square attention this is the same mask, but PyTorch's
is_causal is top-left aligned (j <= i) whatever the lengths: with Sk > Sq every row sees keys it must not, and
with Sk < Sq the first Sq - Sk rows see no key at all (written as zeros here, as flash-attention does).
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _attn_kernel(q_ptr, k_ptr, v_ptr, o_ptr,
                 sqb, sqh, sqm, sqd, skb, skh, skn, skd, svb, svh, svn, svd, sob, soh, som, sod,
                 heads, kv_heads, seq_q, seq_k, qk_scale,
                 HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    bh = tl.program_id(1)
    b = bh // heads
    h = bh % heads
    kv = h // (heads // kv_heads)
    shift = seq_k - seq_q  # BUG: PyTorch's causal mask is top-left aligned, no shift
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_D)
    q = tl.load(q_ptr + b * sqb + h * sqh + offs_m[:, None] * sqm + offs_d[None, :] * sqd,
                mask=offs_m[:, None] < seq_q, other=0.0)
    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_D), tl.float32)
    stop = tl.maximum(tl.minimum(seq_k, start_m + BLOCK_M + shift), 0)
    for start_n in range(0, stop, BLOCK_N):
        cols = start_n + offs_n
        kv_mask = cols[:, None] < seq_k
        k = tl.load(k_ptr + b * skb + kv * skh + cols[:, None] * skn + offs_d[None, :] * skd, mask=kv_mask, other=0.0)
        v = tl.load(v_ptr + b * svb + kv * svh + cols[:, None] * svn + offs_d[None, :] * svd, mask=kv_mask, other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        keep = (cols[None, :] < seq_k) & (cols[None, :] <= offs_m[:, None] + shift)
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # rows that see no key yet
        alpha = tl.exp2(m_i - m_safe)
        p = tl.exp2(s - m_safe[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    out = acc / tl.where(l_i == 0.0, 1.0, l_i)[:, None]
    tl.store(o_ptr + b * sob + h * soh + offs_m[:, None] * som + offs_d[None, :] * sod,
             out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < seq_q)


def attention_causal(query, key, value):
    B, H, Sq, D = query.shape
    Hkv, Sk = key.shape[1], key.shape[2]
    out = torch.empty((B, H, Sq, D), dtype=query.dtype, device=query.device)
    BLOCK_M, BLOCK_N = 64, 32
    grid = (triton.cdiv(Sq, BLOCK_M), B * H)
    _attn_kernel[grid](query, key, value, out, *query.stride(), *key.stride(), *value.stride(), *out.stride(),
                       H, Hkv, Sq, Sk, 1.4426950408889634 / math.sqrt(D),
                       HEAD_D=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    return out
