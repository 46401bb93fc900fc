"""Forgets the scale: softmax(q @ k^T) instead of softmax(q @ k^T * scale).

Everything else is a correct two-pass online softmax. With scales of 0.125 to 0.2 the unscaled softmax is far
too sharp (5x to 8x too low a temperature), so the weights concentrate on the best-matching keys.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(q_ptr, k_ptr, out_ptr, M, N, D,
            sqb, sqm, sqd, skb, skn, skd, sob, som, son,
            BLOCK_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    b = tl.program_id(1)
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    q = tl.load(q_ptr + b * sqb + offs_m[:, None] * sqm + offs_d[None, :] * sqd,
                mask=(offs_m[:, None] < M) & (offs_d[None, :] < D), other=0.0)
    m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    for start_n in range(0, N, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_ptr + b * skb + cols[:, None] * skn + offs_d[None, :] * skd,
                    mask=(cols[:, None] < N) & (offs_d[None, :] < D), other=0.0)
        s = tl.where(cols[None, :] < N, tl.dot(q, tl.trans(k)), float("-inf"))  # BUG: no * scale
        m_new = tl.maximum(m_i, tl.max(s, 1))
        l_i = l_i * tl.exp(m_i - m_new) + tl.sum(tl.exp(s - m_new[:, None]), 1)
        m_i = m_new
    for start_n in range(0, N, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_ptr + b * skb + cols[:, None] * skn + offs_d[None, :] * skd,
                    mask=(cols[:, None] < N) & (offs_d[None, :] < D), other=0.0)
        s = tl.dot(q, tl.trans(k))
        p = tl.exp(s - m_i[:, None]) / l_i[:, None]
        tl.store(out_ptr + b * sob + offs_m[:, None] * som + cols[None, :] * son, p.to(out_ptr.dtype.element_ty),
                 mask=(offs_m[:, None] < M) & (cols[None, :] < N))


def bmm_softmax(query, key, scale):
    B, M, D = query.shape
    N = key.shape[1]
    out = torch.empty((B, M, N), device=query.device, dtype=query.dtype)
    grid = (triton.cdiv(M, 64), B)
    _kernel[grid](query, key, out, M, N, D, *query.stride(), *key.stride(), *out.stride(),
                  BLOCK_D=max(16, triton.next_power_of_2(D)), BLOCK_M=64, BLOCK_N=64)
    return out
