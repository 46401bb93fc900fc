"""Online softmax that forgets to rescale the output accumulator when the running maximum grows.

The running max m and denominator l are updated correctly (l = l * 2^(m_old - m_new) + rowsum(P)), but the
accumulated P V is left at its old scale, so key blocks seen before the maximum last increased are
over-weighted by 2^(m_new - m_old). The result is right only when a row's maximum sits in its first block.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _attn_kernel(q_ptr, k_ptr, v_ptr, o_ptr,
                 sqb, sqh, sqm, sqd, skb, skh, skn, skd, svb, svh, svn, svd, sob, soh, som, sod,
                 heads, seq_q, seq_k, qk_scale,
                 IS_CAUSAL: tl.constexpr, HEAD_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0) * BLOCK_M
    bh = tl.program_id(1)
    b = bh // heads
    h = bh % heads
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_D)
    q = tl.load(q_ptr + b * sqb + h * sqh + offs_m[:, None] * sqm + offs_d[None, :] * sqd,
                mask=offs_m[:, None] < seq_q, other=0.0)
    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_D), tl.float32)
    stop = tl.minimum(seq_k, start_m + BLOCK_M) if IS_CAUSAL else seq_k
    for start_n in range(0, stop, BLOCK_N):
        cols = start_n + offs_n
        kv_mask = cols[:, None] < seq_k
        k = tl.load(k_ptr + b * skb + h * skh + cols[:, None] * skn + offs_d[None, :] * skd, mask=kv_mask, other=0.0)
        v = tl.load(v_ptr + b * svb + h * svh + cols[:, None] * svn + offs_d[None, :] * svd, mask=kv_mask, other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        keep = cols[None, :] < seq_k
        if IS_CAUSAL:
            keep = keep & (cols[None, :] <= offs_m[:, None])
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * tl.exp2(m_i - m_new) + tl.sum(p, 1)
        acc = tl.dot(p.to(v.dtype), v, acc)  # BUG: acc should first be multiplied by 2^(m_i - m_new)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + b * sob + h * soh + offs_m[:, None] * som + offs_d[None, :] * sod,
             out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < seq_q)


def scaled_dot_product_attention(query, key, value, is_causal=False):
    B, H, Sq, D = query.shape
    Sk = key.shape[2]
    out = torch.empty((B, H, Sq, D), dtype=query.dtype, device=query.device)
    BLOCK_M, BLOCK_N = 64, 32
    grid = (triton.cdiv(Sq, BLOCK_M), B * H)
    _attn_kernel[grid](query, key, value, out, *query.stride(), *key.stride(), *value.stride(), *out.stride(),
                       H, Sq, Sk, 1.4426950408889634 / math.sqrt(D),
                       IS_CAUSAL=bool(is_causal), HEAD_D=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    return out
