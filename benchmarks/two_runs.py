"""Two timed runs of the same candidates, compared: how far each task's speedups and each bench workload's
candidate median moved between them (issue 3's two-run drift and A/A figures). Reads results.jsonl rows or the
compact rows of `scripts/compact_rows.py`; no GPU needed.

    python benchmarks/two_runs.py docs/runs/2026-11-22-h200x2-starter-timed-cold-session6.jsonl \\
        docs/runs/2026-11-22-h200-starter-timed-warm-session6.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from kbx.timing.stats import median, quantile


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    rows = (json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return {row["task"]: row for row in rows if row.get("status") == "PASSED" and row.get("speedup_eager")}


def _workloads(row: dict[str, Any]) -> dict[tuple[str, str], float]:
    workloads = row.get("workloads") or (row.get("performance") or {}).get("workloads") or []
    return {(w["workload"], w["dtype"]): w["median_ms"]["candidate"] for w in workloads
            if (w.get("median_ms") or {}).get("candidate")}


def _line(name: str, deviations: dict[str, float], within: float) -> str:
    values = list(deviations.values())
    if not values:
        return f"{name}: nothing to compare"
    worst = max(deviations, key=deviations.__getitem__)
    inside = sum(v <= within for v in values)
    ordered = sorted(values)
    return (f"{name} over {len(values)}: p50 {median(values):.1%}, p95 {quantile(ordered, 0.95):.1%}, "
            f"max {max(values):.1%} ({worst}); {inside} of {len(values)} within {within:.0%}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--within", type=float, default=0.03, help="the drift counted as small (issue 3: 3 %%)")
    args = parser.parse_args(argv)
    first, second = _rows(args.first), _rows(args.second)
    both = sorted(first.keys() & second.keys())
    for key in ("speedup_eager", "speedup_compile"):
        drift = {task: abs(second[task][key] / first[task][key] - 1) for task in both
                 if first[task].get(key) and second[task].get(key)}
        print(_line(f"task {key} drift", drift, args.within))
    medians = {}
    for task in both:
        earlier = _workloads(first[task])
        for slot, ms in _workloads(second[task]).items():
            if slot in earlier:
                medians[f"{task} {slot[0]} {slot[1]}"] = abs(ms / earlier[slot] - 1)
    print(_line("candidate median A/A, bench workloads", medians, args.within))
    return 0


if __name__ == "__main__":
    sys.exit(main())
