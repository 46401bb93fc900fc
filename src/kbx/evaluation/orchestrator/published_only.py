"""A KernelBench problem whose own model breaks at kbx's shrunk sizes is judged, on a GPU, at its published size.

kbx checks a KernelBench problem at small odd sizes (`kbx.tasks.kernelbench.sizes`) as well as the published one,
but some problems' models only work at the published sizes: a LayerNorm over `out_channels` applied to a spatial
dimension that equals it only there (`level2/3_...`, `level2/34_...`), a pooling sized for 224-pixel images. Their
smoke and check cases cannot judge anyone, and before this the whole evaluation was NOT JUDGED, on a GPU too,
although the bench workload (the problem as published, KernelBench's own and only size) runs.

So on a GPU the orchestrator asks the trusted worker, once per task and evaluator, for the reference of the first
case of each shrunk workload; if one raises (for any reason but memory), the evaluation's cases are the bench cases
alone, and the row's message says so. On a CPU, which runs no bench, such a problem stays NOT JUDGED.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from kbx.errors import ReferenceFailed
from kbx.evaluation.cases import Case
from kbx.evaluation.orchestrator.short_of_memory import says_out_of_memory
from kbx.tasks.spec import Task

BENCH = "bench"


def shrinking_breaks(task: Task, cases: Sequence[Case], reference: Callable[[Case], object]) -> str | None:
    """Why a KernelBench task's reference cannot run its shrunk workloads (the first failure), or None when it can
    (and for kbx's own tasks, whose references run at every size). `reference(case)` computes one case's reference
    in the trusted worker.

    Raises:
        ReferenceFailed: the reference ran out of memory (no property of the sizes; `short_of_memory` decides).
    """
    if task.module is None or not any(case.role == BENCH for case in cases):
        return None
    tried: set[str] = set()
    for case in cases:
        if case.role == BENCH or case.workload in tried:
            continue
        tried.add(case.workload)
        try:
            reference(case)
        except ReferenceFailed as exc:
            if says_out_of_memory(str(exc)):
                raise
            return str(exc)
    return None


def bench_only(cases: Sequence[Case]) -> list[Case]:
    """The bench cases of `cases`, numbered afresh."""
    return [replace(case, index=i) for i, case in enumerate(c for c in cases if c.role == BENCH)]


def noted(message: str, why: str) -> str:
    """An evaluation's message with the note that it was judged at the published size alone, and why."""
    note = f"judged at the problem's published size alone: its model breaks at kbx's shrunk sizes ({why[:300]})"
    return f"{note}; {message}" if message else note
