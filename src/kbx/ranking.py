"""Which of a task's candidates is the best: one rule, for a report's outcome per task and for a refine chain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def rank(row: Mapping[str, Any]) -> tuple[bool, bool, float]:
    """A stored row's rank, larger better: correct before incorrect, then one that ran (`call_ok`) before one that
    did not, then faster against eager (untimed counting as 0)."""
    return row.get("status") == "PASSED", bool(row.get("call_ok")), float(row.get("speedup_eager") or 0.0)
