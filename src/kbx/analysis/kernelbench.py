"""KernelBench's numbers beside kbx's, for runs over KernelBench problems (`--suite kernelbench:PATH`, issue 23).

- fast_p at KernelBench's thresholds (`THRESHOLDS`, the table of its `benchmark_eval_analysis.py`): the share of
  tasks whose kernel is correct and more than p times as fast as the baseline (`metrics.fast_p`, kbx's one
  definition, which is KernelBench's: fast_0 is the correctness rate of a timed run, fast_1 the share correct and
  faster). Correct means kbx's verdict; speedups are kbx's measurements, against eager and torch.compile where the
  run timed them, unknown where it did not (a CPU run), never 0.
- where the run recorded it (`--contract kernelbench`), the verdict KernelBench's own rule gave each evaluation
  (`kbx.kernelbench_rule`) beside kbx's: how often they agree, and every evaluation where they differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kbx.analysis import metrics
from kbx.analysis.data import MethodRun, Record, TaskOutcome
from kbx.kernelbench_rule import NOT_JUDGED, PASSED
from kbx.kernelbench_rule import SUITE_PREFIX as PREFIX

THRESHOLDS = (0.0, 0.5, 0.8, 1.0, 1.5, 2.0)
"""KernelBench's speedup thresholds p of fast_p."""

BOTH_PASS, BOTH_FAIL, RULE_ONLY, KBX_ONLY, UNJUDGED = (
    "both pass", "both fail", "kbx fails, KernelBench passes", "kbx passes, KernelBench fails", "rule not judged")
AGREEMENT = (BOTH_PASS, BOTH_FAIL, RULE_ONLY, KBX_ONLY, UNJUDGED)
"""How kbx's verdict and KernelBench's rule's relate on one evaluation, in the order reports show them."""


@dataclass(frozen=True)
class Disagreement:
    """One evaluation the two verdicts disagree on."""

    task: str
    candidate: str
    kbx_status: str
    kbx_message: str
    rule_verdict: str
    rule_message: str
    kind: str
    """RULE_ONLY or KBX_ONLY."""


@dataclass(frozen=True)
class KernelBenchNumbers:
    """One method's KernelBench numbers over the task set."""

    label: str
    tasks: int
    fast_p_eager: tuple[tuple[float, float | None], ...]
    """(p, fast_p vs eager) for each of THRESHOLDS; None where the run was never timed against eager."""
    fast_p_compile: tuple[tuple[float, float | None], ...]
    correct: float
    """kbx's correctness rate (a task counts when some candidate of it passed)."""
    rule_tasks: int
    """Tasks with a candidate KernelBench's rule judged (passed or failed); 0 when the run did not record the rule."""
    rule_correct: float | None
    """Of those, the share with a candidate the rule passed; None when it judged none."""
    agreement: dict[str, int]
    """AGREEMENT -> evaluations, over every evaluation that recorded the rule's verdict."""
    disagreements: tuple[Disagreement, ...]


def kernelbench_numbers(run: MethodRun, outcomes: Sequence[TaskOutcome]) -> KernelBenchNumbers | None:
    """The method's KernelBench numbers, or None when the run is not over KernelBench problems and recorded no
    verdict of KernelBench's rule."""
    ruled = [r for r in run.records if r.rule_verdict is not None and r.task in {o.task for o in outcomes}]
    if not _over_kernelbench(run) and not ruled:
        return None
    judged_by_task: dict[str, bool] = {}
    for r in ruled:
        if r.rule_verdict != NOT_JUDGED:
            judged_by_task[r.task] = judged_by_task.get(r.task, False) or r.rule_verdict == PASSED
    agreement = dict.fromkeys(AGREEMENT, 0)
    disagreements = []
    for r in ruled:
        kind = _agreement(r)
        agreement[kind] += 1
        if kind in (RULE_ONLY, KBX_ONLY):
            disagreements.append(Disagreement(r.task, r.candidate, r.status, str(r.row.get("message") or ""),
                                              str(r.rule_verdict), r.rule_message, kind))
    return KernelBenchNumbers(
        label=run.label, tasks=len(outcomes),
        fast_p_eager=_fast_p(outcomes, "eager"), fast_p_compile=_fast_p(outcomes, "compile"),
        correct=metrics.correctness_rate(outcomes), rule_tasks=len(judged_by_task),
        rule_correct=sum(judged_by_task.values()) / len(judged_by_task) if judged_by_task else None,
        agreement=agreement, disagreements=tuple(sorted(disagreements, key=lambda d: (d.kind, d.task, d.candidate))),
    )


def _fast_p(outcomes: Sequence[TaskOutcome], baseline: str) -> tuple[tuple[float, float | None], ...]:
    timed = metrics.timed(outcomes, baseline)
    return tuple((p, metrics.fast_p(outcomes, p, baseline) if timed else None) for p in THRESHOLDS)


def _agreement(record: Record) -> str:
    if record.rule_verdict == NOT_JUDGED:
        return UNJUDGED
    rule_passed = record.rule_verdict == PASSED
    if record.exe_ok == rule_passed:
        return BOTH_PASS if rule_passed else BOTH_FAIL
    return RULE_ONLY if rule_passed else KBX_ONLY


def _over_kernelbench(run: MethodRun) -> bool:
    """Whether the run's tasks came from a KernelBench checkout (its selection's suite)."""
    suite = (run.info.config.get("selection") or {}).get("suite")
    return str(suite or "").startswith(PREFIX)
