"""Normalises exp(s) directly, without subtracting the row maximum first.

Mathematically the same softmax, and right for moderate scores, but exp(s) overflows float32 once a scaled
score exceeds 88.7: the denominator becomes inf and the outputs inf / inf = NaN (or 0). The sharp workload's
scores reach about 200.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _kernel(q_ptr, k_ptr, out_ptr, scale, M, N, D,
            sqb, sqm, sqd, skb, skn, skd, sob, som, son,
            BLOCK_D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, IEEE: tl.constexpr):
    b = tl.program_id(1)
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    q = tl.load(q_ptr + b * sqb + offs_m[:, None] * sqm + offs_d[None, :] * sqd,
                mask=(offs_m[:, None] < M) & (offs_d[None, :] < D), other=0.0)
    l_i = tl.zeros((BLOCK_M,), tl.float32)
    for start_n in range(0, N, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_ptr + b * skb + cols[:, None] * skn + offs_d[None, :] * skd,
                    mask=(cols[:, None] < N) & (offs_d[None, :] < D), other=0.0)
        if IEEE:  # fp32 scores in full precision, as the solution computes them (TF32 alone would fail smoke)
            s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        else:
            s = tl.dot(q, tl.trans(k)) * scale
        e = tl.where(cols[None, :] < N, tl.exp(s), 0.0)  # BUG: exp(s) overflows for s > 88.7
        l_i += tl.sum(e, 1)
    for start_n in range(0, N, BLOCK_N):
        cols = start_n + offs_n
        k = tl.load(k_ptr + b * skb + cols[:, None] * skn + offs_d[None, :] * skd,
                    mask=(cols[:, None] < N) & (offs_d[None, :] < D), other=0.0)
        if IEEE:  # fp32 scores in full precision, as the solution computes them (TF32 alone would fail smoke)
            s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        else:
            s = tl.dot(q, tl.trans(k)) * scale
        p = tl.exp(s) / l_i[:, None]
        tl.store(out_ptr + b * sob + offs_m[:, None] * som + cols[None, :] * son, p.to(out_ptr.dtype.element_ty),
                 mask=(offs_m[:, None] < M) & (cols[None, :] < N))


def bmm_softmax(query, key, scale):
    B, M, D = query.shape
    N = key.shape[1]
    out = torch.empty((B, M, N), device=query.device, dtype=query.dtype)
    grid = (triton.cdiv(M, 64), B)
    _kernel[grid](query, key, out, float(scale), M, N, D, *query.stride(), *key.stride(), *out.stride(),
                  BLOCK_D=max(16, triton.next_power_of_2(D)), BLOCK_M=64, BLOCK_N=64,
                  IEEE=query.dtype == torch.float32)
    return out
