"""Recording a run's evaluations as they finish: each pair evaluated (or served from the store's cache), stored
at once, and reported as a log line, with a status line on a terminal (`kbx.running.runner` drives it); and, at
the end, the run folder's results.jsonl and run.json (`write_outputs`)."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from threading import Lock
from typing import Any, TextIO

from kbx.candidates.source import Candidate
from kbx.errors import NotJudged
from kbx.evaluation.orchestrator.pipeline import Evaluator, combine
from kbx.evaluation.result import Evaluation
from kbx.status import Status
from kbx.store.cache import cache_key
from kbx.store.db import Store
from kbx.tasks.spec import Task


def work_key(evaluator: Evaluator, task: Task, candidate: Candidate) -> str:
    """The store's cache key of this work on this evaluator (timing settings count only on a GPU; an added contract
    only where it judges the task; the candidate's policy where it is not a kernel's)."""
    timing = evaluator.timing.to_json() if evaluator.device == "cuda" and evaluator.timing else None
    contract = evaluator.contract if task.module is not None else None
    policy = None if candidate.policy.own_kernels_required else candidate.policy.value
    return cache_key(candidate.hash, task.version, evaluator.environment, timing, contract, policy)


class Writer:
    """Evaluates one pair (or serves it from the store's cache), stores it at once, and reports progress."""

    def __init__(self, store: Store, run_id: str, total: int, progress: TextIO | None, use_cache: bool) -> None:
        self._store, self._run_id = store, run_id
        self._total = total
        self._passed = 0
        self._bar = ProgressBar(progress) if progress is not None and progress.isatty() and total > 1 else None
        self._done = 0
        self._first_parts = 0
        """First parts that passed and wait to be timed (a two-part run, `correctness_part`)."""
        self.served = 0
        self._progress = progress
        self._use_cache = use_cache
        self._lock = Lock()
        self.unjudged: list[str] = []
        self.stopped = False
        """Set when the run was interrupted: work still in flight then fails as its workers close, which says
        nothing of its task, so it is neither reported nor kept in `unjudged` (`--resume` evaluates it)."""

    def evaluate(self, evaluator: Evaluator, task: Task, candidate: Candidate) -> Evaluation | None:
        """The fresh Evaluation, or None when the store already had the same work or it could not be judged."""
        with self._judgeable(task, candidate):
            return self.evaluate_row(evaluator, task, candidate)[0]
        return None

    def evaluate_row(self, evaluator: Evaluator, task: Task, candidate: Candidate
                     ) -> tuple[Evaluation | None, dict[str, Any]]:
        """(the fresh Evaluation or None when served from cache, the row as stored)."""
        key = work_key(evaluator, task, candidate)
        hit = self._store.cached(key) if self._use_cache and candidate.code is not None else None
        if hit is not None:
            source_run, row = hit
            row = {**row, "candidate": candidate.name, "provenance": dict(candidate.provenance)}
            self._store.add_evaluation(self._run_id, row, candidate.code, key, cached_from=source_run)
            self._report(row, f" (cached from run {source_run})")
            return None, {**row, "cached_from": source_run}
        evaluation = self._store_fresh(evaluator.evaluate(task, candidate), candidate, key)
        return evaluation, {**evaluation.to_json(), "cached_from": None}

    def correctness_part(self, evaluator: Evaluator, task: Task, candidate: Candidate
                         ) -> tuple[Evaluation | None, bool]:
        """The first part of a two-part evaluation: (the evaluation, True) when it is final and stored (served
        from cache, failed, or nothing left to time), (the passing first part, False) when it waits to be timed.
        A passing first part is kept in the store, so a run interrupted before timing it resumes with its timing."""
        key = work_key(evaluator, task, candidate)
        if (self._use_cache and candidate.code is not None and self._store.cached(key) is not None) \
                or not task.workloads_for(("bench",)):
            return self.evaluate(evaluator, task, candidate), True
        kept = self._store.first_part(self._run_id, task.name, candidate.name, key)
        if kept is not None:  # checked before this run was interrupted: only its timing is left
            return Evaluation.from_json(kept), False
        with self._judgeable(task, candidate):
            evaluation = evaluator.evaluate(task, candidate, part="correctness")
            if evaluation.status is not Status.PASSED:
                return self._store_fresh(evaluation, candidate, key), True
            self._store.add_first_part(self._run_id, evaluation.to_json(), key)
            self._checked(evaluation)
            return evaluation, False
        return None, True

    def timing_part(self, evaluator: Evaluator, task: Task, candidate: Candidate, first: Evaluation
                    ) -> Evaluation | None:
        """The second part (bench cases and timing) of a candidate whose first part passed, joined with it; None
        if it could not be judged."""
        key = work_key(evaluator, task, candidate)
        with self._judgeable(task, candidate):
            second = evaluator.evaluate(task, candidate, part="timing")
            return self._store_fresh(combine(first, second), candidate, key)
        return None

    @contextlib.contextmanager
    def _judgeable(self, task: Task, candidate: Candidate) -> Iterator[None]:
        """Around one evaluation: a task whose reference fails cannot judge the candidate, nor can a machine without a
        GPU judge a CUDA candidate (`NotJudged`); that is reported as a line, kept in `unjudged` and not stored,
        and the run goes on."""
        try:
            yield
        except NotJudged as exc:
            self.not_judged(task, candidate, exc)

    def not_judged(self, task: Task, candidate: Candidate, problem: NotJudged) -> None:
        """Reports an evaluation its task could not judge, and keeps why in `unjudged`."""
        with self._lock:
            if self.stopped:
                return
            self.unjudged.append(str(problem))
            self._done += 1
            self._show(f"[{self._done}/{self._total}] {task.name:28s} {'NOT JUDGED':16s} {candidate.name} - {problem}")

    def _checked(self, evaluation: Evaluation) -> None:
        """Reports a first part that passed: its timing comes once every candidate is checked."""
        with self._lock:
            if self.stopped:
                return
            self._first_parts += 1
            self._show(f"[checked {self._first_parts}] {evaluation.task:28s} {'CORRECT':16s} "
                       f"{evaluation.elapsed_s:6.1f}s  {evaluation.candidate} - timed once all are checked")

    def _store_fresh(self, evaluation: Evaluation, candidate: Candidate, key: str) -> Evaluation:
        row = evaluation.to_json()
        self._store.add_evaluation(self._run_id, row, candidate.code, key)
        self._report(row, "")
        return evaluation

    def _report(self, row: dict[str, Any], note: str) -> None:
        with self._lock:
            self._done += 1
            self.served += bool(note)
            self._passed += row["status"] == "PASSED"
            message = f" - {row['message'][:120]}" if row["message"] else ""
            took = "cached " if note else f"{row['elapsed_s']:6.1f}s"  # a served row took no time in this run
            self._show(f"[{self._done}/{self._total}] {row['task']:28s} {row['status']:16s} "
                       f"{took}  {row['candidate']}{note}{message}")

    def _show(self, line: str) -> None:
        """One log line, with the terminal's status line redrawn under it (called with the lock held)."""
        if self._bar is None:
            say(self._progress, line)
            return
        self._bar.show(line, f"{self._done}/{self._total} done, {self._passed} passed", self._done, self._total)


class ProgressBar:
    """A status line kept at the bottom of a terminal: done/total, passes so far and the time left, redrawn after
    each evaluation's log line. Only on a TTY; elsewhere (CI, files) the log lines alone are written."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._start = time.monotonic()

    def show(self, line: str, status: str, done: int, total: int) -> None:
        elapsed = time.monotonic() - self._start
        left = elapsed / done * (total - done) if done else 0.0
        width = 24
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        eta = f"{int(left // 60)}:{int(left % 60):02d} left" if done < total else f"{elapsed:.0f}s"
        self._stream.write(f"\r\033[K{line}\n[{bar}] {status}, {eta}")
        if done >= total:
            self._stream.write("\n")
        self._stream.flush()


def say(stream: TextIO | None, line: str) -> None:
    if stream is not None:
        print(line, file=stream, flush=True)


def write_outputs(out_dir: Path, rows: list[dict[str, Any]], run_info: dict[str, Any]) -> None:
    """results.jsonl (every row of the run, as stored) and run.json."""
    with open(out_dir / "results.jsonl", "w") as sink:
        for row in rows:
            sink.write(json.dumps(row) + "\n")
    (out_dir / "run.json").write_text(json.dumps(run_info, indent=2) + "\n")


def phase_totals(evaluations: list[Evaluation]) -> dict[str, float]:
    """Seconds by phase summed over the evaluations (more than the wall time when they ran in parallel)."""
    totals: dict[str, float] = {}
    for evaluation in evaluations:
        for phase, seconds in evaluation.phases.items():
            totals[phase] = totals.get(phase, 0.0) + seconds
    return {phase: round(seconds, 2) for phase, seconds in sorted(totals.items())}
