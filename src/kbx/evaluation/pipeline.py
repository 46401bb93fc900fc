"""The evaluation pipeline: static -> build/call -> correctness (DESIGN §5).

`Evaluator` holds one trusted worker for a device and evaluates candidates, each in a fresh candidate worker.
It runs in the orchestrator process and never imports candidate code, torch or CUDA itself.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any

from kbx.candidates.source import Candidate
from kbx.candidates.static import check_static
from kbx.evaluation.cases import Case, new_secret_seed, plan_cases
from kbx.evaluation.result import CaseResult, Evaluation
from kbx.evaluation.sandbox import Limits, WorkerRun, run_worker, scratch_root
from kbx.evaluation.trusted import TrustedWorker
from kbx.evaluation.verdict import Comparison
from kbx.status import Status
from kbx.tasks.spec import Task

DEFAULT_TIMEOUT_S = {"cpu": 600.0, "cuda": 300.0}
"""Wall-clock limit per candidate: the interpreter is slow; on a GPU most of it is compilation."""


class Evaluator:
    """Evaluates candidates on one device; thread-safe, so several candidate workers can run at once."""

    def __init__(self, device: str = "auto", limits: Limits | None = None, secret_seed: int | None = None) -> None:
        self._trusted = TrustedWorker(device)
        self.device = self._trusted.device
        self.environment = self._trusted.environment
        self.limits = limits or Limits(timeout_s=DEFAULT_TIMEOUT_S[self.device])
        self.secret_seed = new_secret_seed() if secret_seed is None else secret_seed
        self._trusted_lock = threading.Lock()

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._trusted.close()

    def evaluate(self, task: Task, candidate: Candidate) -> Evaluation:
        """Evaluate one candidate on one task. Candidate failures come back as statuses, never raised."""
        start = time.monotonic()
        base = Evaluation(
            task=task.name,
            category=task.category,
            candidate=candidate.name,
            candidate_hash=candidate.hash,
            status=Status.PASSED,
            message="",
            stage="static",
            device=self.device,
            task_version=task.version,
            provenance=dict(candidate.provenance),
            environment=self.environment,
        )
        verdict = check_static(
            candidate.code, candidate.entry_point, task.signature, candidate.problem, task.forbidden
        )
        if verdict.status is not None:
            return replace(base, status=verdict.status, message=f"{verdict.check}: {verdict.message}")
        assert candidate.code is not None
        cases = plan_cases(task, self.device, self.secret_seed)
        judged: dict[int, dict[str, Any]] = {}

        def on_case(index: int, path: Path, mutated: list[str]) -> bool:
            if not 0 <= index < len(cases) or index in judged or not path.is_file():
                return True  # a forged or repeated report: that case stays unjudged
            c = cases[index]
            payload = {"index": index, "workload": c.workload, "dtype": c.dtype, "seed": c.seed, "file": path.name}
            with self._trusted_lock:
                (judged[index],) = self._trusted.check(task.path, path.parent, [payload])
            judged[index]["mutated"] = [str(name) for name in mutated]
            return "error" not in judged[index] and _case_result(c, judged[index]).status is Status.PASSED

        job_dir = Path(tempfile.mkdtemp(prefix="kbx-job-", dir=scratch_root()))
        try:
            run = run_worker(task.path, candidate.code, cases, self.device, self.limits, job_dir, on_case)
        finally:
            shutil.rmtree(job_dir, ignore_errors=True)
        evaluation = self._judge(cases, run, judged, replace(base, stage="call"))
        return replace(evaluation, elapsed_s=time.monotonic() - start)

    def _judge(
        self, cases: list[Case], run: WorkerRun, judged: dict[int, dict[str, Any]], base: Evaluation
    ) -> Evaluation:
        base = replace(base, worker_output=run.output)
        results = tuple(
            _case_result(case, judged[case.index])
            for case in cases
            if case.index in judged and "error" not in judged[case.index]
        )
        failed = next((r for r in results if r.status is not Status.PASSED), None)
        if failed is None:
            failure = (
                _unreadable(cases, judged) or _call_failure(run, cases, self.limits) or _unjudged(cases, judged)
            )
            if failure is not None:
                status, message, error = failure
                return replace(base, status=status, message=message, error=error, cases=results)
        if failed is None:
            return replace(base, stage="correctness", cases=results)
        message = f"{failed.workload}/{failed.dtype}: {failed.message}"
        return replace(base, stage="correctness", status=failed.status, message=message, cases=results)


def _call_failure(run: WorkerRun, cases: list[Case], limits: Limits) -> tuple[Status, str, str] | None:
    """The status of a worker that did not call the candidate on every case, or None if it did."""
    events = run.events
    by_kind = {e.get("event"): e for e in events}
    current = _current_case(events, cases)
    if run.timed_out:
        return Status.TIMEOUT, f"no result within {limits.timeout_s:g}s{current}", ""
    for kind in ("import_error", "case_error"):
        if kind in by_kind:
            event = by_kind[kind]
            status = _status_or(event.get("status"), Status.RUNTIME_ERROR)
            where = "while importing the candidate" if kind == "import_error" else current.removeprefix(", ")
            return status, f"{event.get('error', '')} ({where})", str(event.get("traceback", ""))
    if "finished" in by_kind and all(
        any(e.get("event") == "case_done" and e.get("index") == c.index for e in events) for c in cases
    ):
        return None
    code = run.returncode
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        if name == "SIGXCPU":
            return Status.TIMEOUT, f"CPU-time limit exceeded{current}", ""
        hint = " (possibly out of memory)" if name == "SIGKILL" else ""
        return Status.CRASHED, f"worker killed by {name}{hint}{current}", ""
    if "started" not in by_kind:
        return Status.CRASHED, f"worker failed to start (exit code {code}): {run.output[-300:]}", ""
    return Status.CRASHED, f"worker exited with code {code} before finishing{current}", ""


def _unreadable(cases: list[Case], judged: dict[int, dict[str, Any]]) -> tuple[Status, str, str] | None:
    """A case whose saved outputs could not be read back (the file is the candidate process's to spoil)."""
    for case in cases:
        if "error" in judged.get(case.index, {}):
            error = judged[case.index]["error"]
            return Status.CRASHED, f"the saved outputs of {case.label()} could not be read: {error}", ""
    return None


def _unjudged(cases: list[Case], judged: dict[int, dict[str, Any]]) -> tuple[Status, str, str] | None:
    """A worker that claims to have finished every case but left one without saved outputs."""
    for case in cases:
        if case.index not in judged:
            return Status.CRASHED, f"the worker reported {case.label()} done but saved no output for it", ""
    return None


def _current_case(events: list[dict[str, Any]], cases: list[Case]) -> str:
    started = [e.get("index") for e in events if e.get("event") == "case_start"]
    if not started or not isinstance(started[-1], int) or not 0 <= started[-1] < len(cases):
        return ", before the first case" if any(e.get("event") == "imported" for e in events) else ""
    return f", during {cases[started[-1]].label()}"


def _status_or(value: Any, default: Status) -> Status:
    try:
        return Status(value)
    except ValueError:
        return default


def _case_result(case: Case, raw: dict[str, Any]) -> CaseResult:
    comparisons = tuple(Comparison.from_json(c) for c in raw["comparisons"])
    failed = next((c for c in comparisons if c.status is not Status.PASSED), None)
    mutated = tuple(raw["mutated"])
    if failed is not None:
        status, message = failed.status, failed.message
    elif mutated:
        status, message = Status.INPUT_MUTATED, f"the call changed input(s) {', '.join(mutated)}"
    else:
        status, message = Status.PASSED, ""
    return CaseResult(case.index, case.workload, case.dtype, case.secret, status, message, comparisons, mutated)
