"""Cross-hardware variance: the same candidate (by content hash) timed on different GPUs.

A speedup measured on one GPU is a claim about that GPU; the spread (largest / smallest speedup of one kernel across
GPUs) says how far it carries. Only correct, timed evaluations count.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kbx.analysis.data import Record


@dataclass(frozen=True)
class CrossHardware:
    """One kernel timed on two or more GPUs."""

    task: str
    candidate_hash: str
    speedups: tuple[tuple[str, float], ...]
    """(GPU, speedup vs eager), one per GPU (the median where a GPU timed it more than once), sorted by GPU."""

    @property
    def spread(self) -> float:
        """Largest speedup / smallest speedup."""
        values = [s for _, s in self.speedups]
        return max(values) / min(values)


def cross_hardware(records: Iterable[Record]) -> list[CrossHardware]:
    """Kernels with timed, correct evaluations on at least two GPUs, by task then largest spread first."""
    timed: dict[tuple[str, str], dict[str, list[float]]] = {}
    for r in records:
        if r.exe_ok and r.speedup_eager is not None and r.speedup_eager > 0:
            timed.setdefault((r.task, r.candidate_hash), {}).setdefault(r.gpu, []).append(r.speedup_eager)
    found = [
        CrossHardware(task, digest, tuple((gpu, _median(v)) for gpu, v in sorted(by_gpu.items())))
        for (task, digest), by_gpu in timed.items() if len(by_gpu) >= 2
    ]
    return sorted(found, key=lambda c: (c.task, -c.spread))


def spread_by_task(kernels: Iterable[CrossHardware]) -> dict[str, float]:
    """task -> the largest spread among its kernels."""
    out: dict[str, float] = {}
    for k in kernels:
        out[k.task] = max(out.get(k.task, 0.0), k.spread)
    return dict(sorted(out.items()))


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
