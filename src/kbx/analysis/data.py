"""Analysis inputs: store rows turned into typed records, grouped by run, reduced to one outcome per task.

Analysis reads only the store (DESIGN §7). A run's rows become `Record`s here and nothing downstream sees a raw dict.
When a run holds several candidates for one task (samples, refinement iterations), its `TaskOutcome` is the best of
them: a correct candidate over an incorrect one, then the faster (vs eager) — the "best kernel the method found".
A task in the task set that a run never evaluated is an outcome with every flag false: missing work is a failure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kbx.errors import KbxError
from kbx.store.db import RunInfo, Store

MISSING = "MISSING"
"""The status of a task a run did not evaluate."""


@dataclass(frozen=True)
class Record:
    """One stored evaluation, the fields analysis uses (DESIGN §9)."""

    run_id: str
    task: str
    category: str
    candidate: str
    candidate_hash: str
    status: str
    call_ok: bool
    exe_ok: bool
    speedup_eager: float | None
    speedup_compile: float | None
    sol_fraction: float | None
    gpu: str
    """The GPU's name from the environment fingerprint, or the device kind (`cpu`) when there is none."""
    sample: int
    iteration: int | None
    """The refinement iteration (0 first) when the row's provenance has one."""
    row: Mapping[str, Any]
    """The whole row, for the report's drill-down only (mismatch details, timings, transcript)."""

    @classmethod
    def from_row(cls, run_id: str, row: Mapping[str, Any]) -> Record:
        provenance = row.get("provenance") or {}
        environment = row.get("environment") or {}
        performance = row.get("performance") or {}
        gpu = environment.get("gpu") or (performance.get("environment") or {}).get("gpu") or row.get("device", "?")
        iteration = provenance.get("iteration")
        return cls(
            run_id=run_id, task=row["task"], category=row.get("category") or "?", candidate=row["candidate"],
            candidate_hash=row.get("candidate_hash", ""), status=row["status"], call_ok=bool(row["call_ok"]),
            exe_ok=bool(row["exe_ok"]), speedup_eager=_number(row.get("speedup_eager")),
            speedup_compile=_number(row.get("speedup_compile")), sol_fraction=_number(row.get("sol_fraction")),
            gpu=str(gpu), sample=int(provenance.get("sample") or 0),
            iteration=None if iteration is None else int(iteration), row=row,
        )


@dataclass(frozen=True)
class TaskOutcome:
    """What one method achieved on one task: its best candidate's flags and speeds, and the sample counts."""

    task: str
    category: str
    status: str
    """The best candidate's status; `MISSING` when the run never evaluated the task."""
    call_ok: bool
    exe_ok: bool
    speedup_eager: float | None
    speedup_compile: float | None
    sol_fraction: float | None
    samples: int
    """Independent samples (n of pass@k): distinct `provenance.sample`, a refinement chain counting once; 0 when
    the run missed the task."""
    correct: int
    """Samples with a correct candidate (c of pass@k)."""

    def speedup(self, baseline: str) -> float | None:
        """The speedup against `eager` or `compile`."""
        if baseline == "eager":
            return self.speedup_eager
        if baseline == "compile":
            return self.speedup_compile
        raise ValueError(f"no baseline {baseline!r}: eager or compile")


@dataclass(frozen=True)
class MethodRun:
    """One run with its label and records: the unit every table has a row for."""

    info: RunInfo
    label: str
    """Method and model (`refine:openai:gpt-x`), with the GPU or run id added where two runs would share a label."""
    records: tuple[Record, ...]

    def outcomes(self, tasks: Mapping[str, str]) -> list[TaskOutcome]:
        """One outcome per task of the task set (name -> category), in the set's order."""
        return task_outcomes(self.records, tasks)


def task_outcomes(records: Iterable[Record], tasks: Mapping[str, str]) -> list[TaskOutcome]:
    """Reduce records to one `TaskOutcome` per task of `tasks` (name -> category); missing tasks fail."""
    by_task: dict[str, list[Record]] = {}
    for r in records:
        by_task.setdefault(r.task, []).append(r)
    return [_outcome(name, category, by_task.get(name, [])) for name, category in tasks.items()]


def _outcome(task: str, category: str, records: Sequence[Record]) -> TaskOutcome:
    if not records:
        return TaskOutcome(task, category, MISSING, False, False, None, None, None, 0, 0)
    best = max(records, key=lambda r: (r.exe_ok, r.call_ok, r.speedup_eager or 0.0))
    solved: dict[int, bool] = {}
    for r in records:  # a refinement chain is one sample: correct if any of its iterations is
        solved[r.sample] = solved.get(r.sample, False) or r.exe_ok
    return TaskOutcome(task, category, best.status, best.call_ok, best.exe_ok, best.speedup_eager, best.speedup_compile,
                       best.sol_fraction, len(solved), sum(solved.values()))


def load_runs(store: Store, run_ids: Sequence[str]) -> list[MethodRun]:
    """The runs (ids or unique prefixes) with their records, labelled by method and model.

    Raises:
        KbxError: a run is unknown, ambiguous, or named twice.
    """
    infos = [store.run(run_id) for run_id in run_ids]
    seen = [info.run_id for info in infos]
    if len(set(seen)) < len(seen):
        raise KbxError(f"a run is named twice: {', '.join(sorted({r for r in seen if seen.count(r) > 1}))}")
    loaded = [(info, tuple(Record.from_row(info.run_id, row) for row in store.rows(info.run_id))) for info in infos]
    labels = _labels(loaded)
    return [MethodRun(info, label, records) for (info, records), label in zip(loaded, labels)]


def task_set(runs: Sequence[MethodRun], names: Sequence[str] = ()) -> dict[str, str]:
    """The denominator of every rate: `names` if given, else the union of the runs' tasks; name -> category."""
    categories = {r.task: r.category for run in runs for r in run.records}
    chosen = list(names) or sorted(categories)
    return {name: categories.get(name, "?") for name in chosen}


def method_label(info: RunInfo) -> str:
    """The run's method, with its model when it has one."""
    return f"{info.method}:{info.model}" if info.model else info.method


def _labels(loaded: Sequence[tuple[RunInfo, tuple[Record, ...]]]) -> list[str]:
    """`method:model`; where two runs share it, the GPU is added, or the run id where the GPU is the same too."""
    base = [method_label(info) for info, _ in loaded]
    with_gpu = [f"{label} @ {'/'.join(sorted({r.gpu for r in records}) or [info.device])}"
                for (info, records), label in zip(loaded, base)]
    return [label if base.count(label) == 1 else gpu_label if with_gpu.count(gpu_label) == 1
            else f"{label} [{info.run_id[:8]}]"
            for (info, _), label, gpu_label in zip(loaded, base, with_gpu)]


def _number(value: Any) -> float | None:
    return None if value is None else float(value)
