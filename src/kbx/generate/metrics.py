"""pass@k from stored sample rows (the unbiased estimator of Chen et al. 2021, "Evaluating Large Language Models
Trained on Code", in its numerically stable product form)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn without replacement from n, c of them correct, is correct.

    Args:
        n: samples generated.
        c: samples that passed.
        k: samples a user would draw; 1 <= k <= n.
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def pass_at_k_by_task(rows: Iterable[Mapping[str, Any]], k: int) -> dict[str, float]:
    """pass@k per task over a run's rows (one per sample); tasks with fewer than k samples are left out."""
    counts: dict[str, list[int]] = {}
    for row in rows:
        n_c = counts.setdefault(row["task"], [0, 0])
        n_c[0] += 1
        n_c[1] += row["status"] == "PASSED"
    return {task: pass_at_k(n, c, k) for task, (n, c) in sorted(counts.items()) if n >= k}


def pass_at_k_summary(rows: Iterable[Mapping[str, Any]], samples: int) -> dict[str, float]:
    """Mean pass@k over tasks for k in 1, 5, 10 and `samples` (those not above it), keyed `"pass@k"`."""
    rows = list(rows)
    summary = {}
    for k in sorted({1, 5, 10, samples}):
        by_task = pass_at_k_by_task(rows, k) if k <= samples else {}
        if by_task:
            summary[f"pass@{k}"] = round(sum(by_task.values()) / len(by_task), 4)
    return summary
