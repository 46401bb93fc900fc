"""The work an operation needs, for tasks whose reference does more than that (their `flops` override; the speed
of light is computed from it, and a candidate measured faster than light is rejected, so an overcount there can
reject an honest kernel)."""

from __future__ import annotations


def attended_pairs(s_q: int, s_kv: int, *, causal: bool = False, window: int | None = None) -> int:
    """(query, key) pairs attention scores: all of them, or with PyTorch's top-left aligned causal mask (query i sees
    keys 0..i), or a causal band of `window` keys (query i sees keys i - window + 1 .. i)."""
    if window is not None:
        return sum(min(i + 1, window, s_kv) for i in range(s_q))
    if causal:
        full = max(0, min(s_q, s_kv))  # queries 0 .. s_kv - 1 see i + 1 keys; any later one sees all s_kv
        return full * (full + 1) // 2 + max(0, s_q - s_kv) * s_kv
    return s_q * s_kv


def attention_flops(heads: int, s_q: int, s_kv: int, d_qk: int, d_v: int, *, causal: bool = False,
                    window: int | None = None) -> int:
    """FLOPs of softmax(q kᵀ) v over `heads` (batch x query heads) independent heads: per attended pair, 2 d_qk
    for the score and 2 d_v for its share of the output; the masked-away pairs count nothing (a kernel that
    skips them does less work than the reference, which computes every score and masks it)."""
    return 2 * heads * attended_pairs(s_q, s_kv, causal=causal, window=window) * (d_qk + d_v)
