"""The work an operation needs, for tasks whose reference does more than that (their `flops` and `min_bytes`
overrides; the speed of light is computed from them, and a candidate measured faster than light is rejected, so an
overcount there can reject an honest kernel)."""

from __future__ import annotations

from typing import Any


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


def work_of(code: Any, inputs: dict[str, Any], outputs: Any) -> dict[str, int]:
    """The work of `code` (a `TaskCode`) on `inputs`, whose reference returned `outputs`: FLOPs (the task's
    `flops(**inputs)`, else torch's flop counter over the reference) and bytes (the task's `min_bytes(**inputs)`,
    else every input read and every output written once)."""
    from kbx.timing.sol import count_flops, minimum_bytes

    flops = int(code.flops(**inputs)) if code.flops is not None else count_flops(code.reference, inputs)
    nbytes = int(code.min_bytes(**inputs)) if code.min_bytes is not None else minimum_bytes(inputs, outputs)
    return {"flops": flops, "bytes": nbytes}


def tensor_bytes(*tensors: Any) -> int:
    """Bytes of the tensors' elements, each counted whole; anything that is not a tensor (None, a number) counts
    nothing. The one byte count of kbx: tasks' `min_bytes`, the evaluation's memory budgets and thresholds."""
    return sum(t.numel() * t.element_size() for t in tensors if hasattr(t, "element_size"))


def band_elements(rows: int, cols: int, diagonal: int, *, lower: bool) -> int:
    """Entries (i, j) of a rows x cols matrix on or below the `diagonal`-th diagonal (j - i <= diagonal: what
    `torch.tril` keeps) or, with `lower=False`, on or above it (j - i >= diagonal: what `torch.triu` keeps)."""
    if lower:
        return sum(min(max(i + diagonal + 1, 0), cols) for i in range(rows))
    return sum(min(max(cols - (i + diagonal), 0), cols) for i in range(rows))
