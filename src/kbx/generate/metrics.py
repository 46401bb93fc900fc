"""pass@k of a sample run's rows, for its run.json (the estimator itself is `kbx.ranking.pass_at_k`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kbx.ranking import pass_at_k


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
