"""KernelBench's own rule, run beside kbx's verdict (`--contract kernelbench`; the rule's numbers:
`kbx.kernelbench_rule`).

Where it runs, and why there:
- a candidate worker of its own, after kbx's evaluation, confined like every other: the five trials must run
  whatever kbx decided (a kernel kbx rejects may be one KernelBench accepts, which is the point of the comparison),
  and kbx's evaluation stops at its first failure. Its own worker also keeps kbx's verdict exactly what it would be
  without the rule;
- its cases are the problem as published (the bench workload) under five public seeds, made in the candidate's
  worker from the seed as every case is; the trusted worker computes each reference and compares
  (`kbx.evaluation.trusted.compare.kernelbench_judge`): the candidate never sees a reference;
- the candidate's torch work and launch trace are not judged in these cases (KernelBench has no such rule), and a
  mismatch does not stop them (KernelBench counts every trial).

On a CPU the interpreter runs the problem's own size only where its largest input (estimated from `get_inputs`,
`problem.published_elements`) stays within the check workload's budget (`CPU_ELEMENTS`); elsewhere the rule's
verdict is NOT_JUDGED, never a guess.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kbx import kernelbench_rule as rule
from kbx.candidates.static import StaticVerdict
from kbx.errors import ReferenceFailed
from kbx.evaluation.candidate.audit import JOB_PREFIX
from kbx.evaluation.cases import Case, case_seed
from kbx.evaluation.orchestrator.conversation import Conversation
from kbx.evaluation.orchestrator.failures import call_failure
from kbx.evaluation.orchestrator.gpu_gate import GpuGate
from kbx.evaluation.orchestrator.handover import Inbox
from kbx.evaluation.orchestrator.sandbox import Limits, WorkerRun, scratch_root
from kbx.evaluation.orchestrator.trusted_client import TrustedWorker
from kbx.evaluation.verdict import Comparison
from kbx.kernelbench_rule import RuleVerdict, failed, not_judged
from kbx.status import Status
from kbx.tasks.kernelbench import sizes
from kbx.tasks.kernelbench.problem import published_elements
from kbx.tasks.spec import Task

CPU_ELEMENTS = {1: sizes.CHECK.budget, 2: sizes.CHECK.budget, 3: sizes.NETWORK_CHECK.budget}
"""By level: the largest input (elements) at which the CPU runs the rule at the problem's own size, the budget of
the level's check workload."""

_FAILS_THE_RULE_TOO = frozenset({"has_code", "parses", "entry_point"})
"""Static checks whose failure KernelBench's harness shares (no code, a syntax error, no `ModelNew` taking
`Model`'s arguments); any other static rejection is kbx's policy, and the rule is not run after it."""

RunWorker = Callable[[Path, Conversation, Inbox], WorkerRun]
"""Starts the candidate's worker in a job directory, answered by the conversation, handing its shared outputs to
the inbox, and waits for it (`kbx.evaluation.orchestrator.sandbox.run_worker`, as the Evaluator calls it)."""


def cases(task: Task) -> list[Case]:
    """The rule's trials: the bench workload under `TRIALS` public seeds."""
    dtype = task.dtypes[0]
    return [Case(i, rule.WORKLOAD, dtype, case_seed(rule.SEED, task.name, f"{rule.WORKLOAD}~kernelbench{i}", dtype),
                 False, "bench") for i in range(rule.TRIALS)]


def cannot_run(task: Task, device: str) -> str | None:
    """Why this device cannot run the rule on the task, or None."""
    if not task.workloads_for((rule.WORKLOAD,)):
        return f"task {task.name} has no {rule.WORKLOAD} workload"
    if device != "cpu":
        return None
    elements = published_elements(task)
    budget = CPU_ELEMENTS[task.level]
    if elements > budget:
        return (f"the problem's own size (its largest input about {elements:,} elements) is more than the CPU "
                f"interpreter runs ({budget:,}); a GPU judges it")
    return None


def after_static(verdict: StaticVerdict) -> RuleVerdict:
    """The rule's verdict on a candidate kbx's static stage stopped: failed where KernelBench's harness fails it too,
    else not run."""
    if verdict.check in _FAILS_THE_RULE_TOO or verdict.status is Status.COMPILE_ERROR:
        return failed(f"{verdict.check}: {verdict.message}")
    return not_judged(f"kbx's static stage rejected it ({verdict.check}), so it was never run")


def after_build(status: Status | None, message: str) -> RuleVerdict:
    """The rule's verdict on a CUDA candidate whose extensions did not build: a compiler error fails it (KernelBench's
    `compiled: false`); a build that ran out of time or crashed says nothing of it."""
    if status in (None, Status.COMPILE_ERROR):
        return failed(f"did not compile: {message}")
    return not_judged(f"its extensions' build ended {status.value}: {message}")


def judge_rule(task: Task, trusted: TrustedWorker, lock: threading.Lock, limits: Limits, device: str,
               start: RunWorker, gate: GpuGate | None = None) -> RuleVerdict:
    """Run the rule's trials in a fresh candidate worker (`start`) and judge them in the trusted worker; `gate`:
    the GPU's gate when the run times candidates (the trials hold it shared, as kbx's cases do)."""
    why = cannot_run(task, device)
    if why is not None:
        return not_judged(why)
    trials = cases(task)
    inbox = Inbox()
    judged: dict[int, dict[str, Any]] = {}

    def judge(case: Case, path: Path, mutated: list[str]) -> bool:
        payload = {**case.to_json(), "file": path.name, "job": path.parent.name, rule.CASE_RULE: rule.NAME}
        with lock:
            (judged[case.index],) = trusted.check(task.path, path.parent, [payload], inbox.take())
        return True  # a trial that fails does not stop the others: KernelBench counts them all

    job_dir = Path(tempfile.mkdtemp(prefix=JOB_PREFIX, dir=scratch_root()))
    conversation = Conversation(trials, judge, job_dir, gate=gate, watched=False)
    try:
        run = start(job_dir, conversation, inbox)
    except ReferenceFailed as exc:
        return not_judged(str(exc))
    finally:
        conversation.close()
        inbox.close()
        shutil.rmtree(job_dir, ignore_errors=True)
    if conversation.rejected:
        return not_judged(f"the worker broke kbx's protocol ({conversation.rejected})")
    return verdict(trials, judged, call_failure(run, trials, limits), device)


def verdict(trials: list[Case], judged: dict[int, dict[str, Any]], failure: tuple[Status, str, str] | None,
            device: str) -> RuleVerdict:
    """The rule's verdict from the judged trials and, where the worker stopped early, how it stopped."""
    passed, first = 0, ""
    for case in trials:
        answer = judged.get(case.index)
        if answer is None:
            continue
        if "error" in answer:
            return not_judged(f"the saved outputs of trial {case.index + 1} could not be read: {answer['error']}")
        comparisons = [Comparison.from_json(c) for c in answer["comparisons"]]
        wrong = next((c for c in comparisons if c.status is not Status.PASSED), None)
        passed += wrong is None
        if wrong is not None and not first:
            first = f"trial {case.index + 1}: {wrong.status.value}: {wrong.message}"
    if len(judged) == len(trials) and failure is None:
        return RuleVerdict(rule.PASSED, passed, rule.TRIALS) if passed == rule.TRIALS else failed(first, passed)
    if failure is None:
        return not_judged("the worker stopped before every trial was judged")
    status, message, _ = failure
    if status is Status.TIMEOUT and device == "cpu":
        return not_judged(f"the interpreter did not finish the trials: {message}")
    if status in (Status.REJECTED_RUNTIME, Status.REJECTED_STATIC):
        return not_judged(f"kbx's in-process guards stopped it ({message}), which KernelBench's harness has not")
    return failed(f"{status.value}: {message}", passed)
