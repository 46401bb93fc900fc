"""Analysis inputs: store rows turned into typed records, grouped by run, reduced to one outcome per task.

Analysis reads only the store (DESIGN §7). A run's rows become `Record`s here and nothing downstream sees a raw dict.
When a run holds several candidates for one task (samples, refinement iterations), its `TaskOutcome` is the best of
them: a correct candidate over an incorrect one, then the faster (vs eager) — the "best kernel the method found".
A task in the task set that a run never evaluated is an outcome with every flag false: missing work is a failure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kbx.analysis.workloads import WorkloadSpeedup, uncompetitive_note, worst_workload
from kbx.errors import KbxError
from kbx.ranking import rank
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
    uncompetitive: str = ""
    """Why the task's timed baseline is not competitive (`kbx.analysis.workloads.uncompetitive_note`), or ""."""
    rule_verdict: str | None = None
    """KernelBench's own rule's verdict (PASSED, FAILED, NOT_JUDGED) where the run recorded it
    (`--contract kernelbench`), else None."""
    rule_message: str = ""

    @classmethod
    def from_row(cls, run_id: str, row: Mapping[str, Any]) -> Record:
        provenance = row.get("provenance") or {}
        environment = row.get("environment") or {}
        performance = row.get("performance") or {}
        gpu = environment.get("gpu") or (performance.get("environment") or {}).get("gpu") or row.get("device", "?")
        iteration = provenance.get("iteration")
        rule = row.get("kernelbench") or {}
        return cls(
            run_id=run_id, task=row["task"], category=row.get("category") or "?", candidate=row["candidate"],
            candidate_hash=row.get("candidate_hash", ""), status=row["status"], call_ok=bool(row["call_ok"]),
            exe_ok=bool(row["exe_ok"]), speedup_eager=_number(row.get("speedup_eager")),
            speedup_compile=_number(row.get("speedup_compile")), sol_fraction=_number(row.get("sol_fraction")),
            gpu=str(gpu), sample=int(provenance.get("sample") or 0),
            iteration=None if iteration is None else int(iteration), row=row, uncompetitive=uncompetitive_note(row),
            rule_verdict=rule.get("verdict"), rule_message=str(rule.get("message") or ""),
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
    worst_eager: WorkloadSpeedup | None = None
    """The best candidate's bench slot with the lowest speedup against eager (`kbx.analysis.workloads`)."""
    worst_compile: WorkloadSpeedup | None = None
    uncompetitive: str = ""
    """Why the task's timed baseline is not a competitive implementation, as its rows recorded it; "" when it is."""

    def speedup(self, baseline: str) -> float | None:
        """The speedup against `eager` or `compile`."""
        if baseline == "eager":
            return self.speedup_eager
        if baseline == "compile":
            return self.speedup_compile
        raise ValueError(f"no baseline {baseline!r}: eager or compile")

    def worst(self, baseline: str) -> WorkloadSpeedup | None:
        """The bench slot with the lowest speedup against `eager` or `compile`."""
        if baseline == "eager":
            return self.worst_eager
        if baseline == "compile":
            return self.worst_compile
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
    best = max(records, key=lambda r: rank(r.row))
    solved: dict[int, bool] = {}
    for r in records:  # a refinement chain is one sample: correct if any of its iterations is
        solved[r.sample] = solved.get(r.sample, False) or r.exe_ok
    return TaskOutcome(task, category, best.status, best.call_ok, best.exe_ok, best.speedup_eager, best.speedup_compile,
                       best.sol_fraction, len(solved), sum(solved.values()),
                       worst_eager=worst_workload(best.row, "eager"), worst_compile=worst_workload(best.row, "compile"),
                       uncompetitive=next((r.uncompetitive for r in records if r.uncompetitive), ""))


JOIN = "+"
"""Joins run ids into one method's runs: `A+B` (see `load_runs`)."""


def load_runs(store: Store, run_ids: Sequence[str]) -> list[MethodRun]:
    """The runs (ids or unique prefixes) with their records, labelled by method and model.

    An argument `A+B+...` is one method whose work was split over several runs (tasks spread over device calls,
    or failures run again after a fix): its records are the union, and where runs evaluated the same task, the
    later run's records replace the earlier's. The runs must share method, model and device.

    Raises:
        KbxError: a run is unknown, ambiguous, named twice, or joined with a run of another method.
    """
    groups = [[store.run(run_id) for run_id in argument.split(JOIN)] for argument in run_ids]
    seen = [info.run_id for group in groups for info in group]
    if len(set(seen)) < len(seen):
        raise KbxError(f"a run is named twice: {', '.join(sorted({r for r in seen if seen.count(r) > 1}))}")
    loaded = [_joined(group, [store.rows(info.run_id) for info in group]) for group in groups]
    labels = _labels(loaded)
    return [MethodRun(info, label, records) for (info, records), label in zip(loaded, labels)]


def _joined(infos: Sequence[RunInfo], rows: Sequence[Sequence[Mapping[str, Any]]]
            ) -> tuple[RunInfo, tuple[Record, ...]]:
    """One run's info and records, or those of several runs joined (`load_runs`)."""
    if len(infos) == 1:
        return infos[0], tuple(Record.from_row(infos[0].run_id, row) for row in rows[0])
    kinds = {(info.method, info.model, info.device) for info in infos}
    if len(kinds) > 1:
        raise KbxError(f"runs joined with {JOIN} must share method, model and device: "
                       + "; ".join(f"{i.run_id} is {method_label(i)} on {i.device}" for i in infos))
    run_id = JOIN.join(info.run_id for info in infos)
    latest: dict[str, list[Mapping[str, Any]]] = {}
    for run_rows in rows:  # a later run's rows replace an earlier run's for the tasks it evaluated
        latest.update({task: [r for r in run_rows if r["task"] == task] for task in {r["task"] for r in run_rows}})
    records = tuple(Record.from_row(run_id, row) for task_rows in latest.values() for row in task_rows)
    first = infos[0]
    info = replace(
        first, run_id=run_id, git_sha=_distinct(i.git_sha for i in infos),
        harness=_distinct(i.harness for i in infos) or first.harness,
        ended_at=None if any(i.ended_at is None for i in infos) else max(i.ended_at or 0.0 for i in infos),
        secret_seed=None, evaluations=len(records),
    )
    return info, records


def _distinct(values: Iterable[str | None]) -> str | None:
    """The values, each once, in order, comma-separated (None when all are None)."""
    kept = list(dict.fromkeys(v for v in values if v))
    return ", ".join(kept) if kept else None


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
