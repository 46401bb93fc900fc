"""Plain-text summaries of a run for the terminal."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

Row = Mapping[str, Any]
"""A results.jsonl row (`Evaluation.to_json()`)."""


def summary_table(evaluations: Sequence[Row]) -> str:
    """Per-category counts of evaluations, call_ok and exe_ok, then counts per status."""
    rows = [("category", "evals", "call_ok", "exe_ok")]
    by_category: dict[str, list[Row]] = {}
    for e in evaluations:
        by_category.setdefault(e["category"], []).append(e)
    for category in sorted(by_category):
        group = by_category[category]
        rows.append((category, str(len(group)), _share(group, "call_ok"), _share(group, "exe_ok")))
    rows.append(("all", str(len(evaluations)), _share(evaluations, "call_ok"), _share(evaluations, "exe_ok")))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths)))
             for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    lines.insert(len(lines) - 1, "-" * len(lines[0]))
    counts = Counter(e["status"] for e in evaluations)
    lines.append("")
    lines.append("status: " + ", ".join(f"{name} {n}" for name, n in sorted(counts.items())))
    return "\n".join(lines)


def _share(group: Sequence[Row], flag: str) -> str:
    hits = sum(1 for e in group if e[flag])
    return f"{hits}/{len(group)}"
