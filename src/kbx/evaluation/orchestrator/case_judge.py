"""The judging of one evaluation's cases, case by case as the candidate worker saves them: the trusted worker's
answers, kept, and each case's result from its answer."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from kbx.evaluation.cases import Case
from kbx.evaluation.orchestrator.handover import Inbox
from kbx.evaluation.orchestrator.trusted_client import TrustedWorker
from kbx.evaluation.result import CaseResult
from kbx.evaluation.verdict import Comparison
from kbx.status import Status
from kbx.tasks.spec import Task


class CaseJudge:
    """Has the trusted worker judge each saved case of one evaluation (the Conversation's `JudgeCase`), keeping
    every answer."""

    def __init__(self, task: Task, cases: list[Case], trusted: TrustedWorker, lock: threading.Lock,
                 inbox: Inbox, keep_references: bool = True) -> None:
        """`keep_references`: whether the trusted worker keeps each case's reference for later candidates."""
        self.task, self.cases, self._trusted, self._lock, self._inbox = task, cases, trusted, lock, inbox
        self._keep_references = keep_references
        self.judged: dict[int, dict[str, Any]] = {}
        self._originals = {c.twin for c in cases if c.twin is not None}

    def __call__(self, case: Case, path: Path, mutated: list[str]) -> bool:
        payload = {**case.to_json(), "file": path.name, "job": path.parent.name}
        if case.index in self._originals:
            payload["keep"] = True
        if case.twin is not None:
            payload["twin"] = case.twin
        if not self._keep_references:
            payload["cache"] = False
        with self._lock:
            (answer,) = self._trusted.check(self.task.path, path.parent, [payload], self._inbox.take())
        self.judged[case.index] = {**answer, "mutated": mutated}
        return self._passed(case)

    def passed_every_case(self) -> bool:
        return len(self.judged) == len(self.cases) and all(self._passed(c) for c in self.cases)

    def _passed(self, case: Case) -> bool:
        raw = self.judged.get(case.index)
        return raw is not None and "error" not in raw and case_result(case, raw).status is Status.PASSED


def case_result(case: Case, raw: dict[str, Any]) -> CaseResult:
    """The result of one case from the trusted worker's answer (its comparisons) and the inputs it changed."""
    comparisons = tuple(Comparison.from_json(c) for c in raw["comparisons"])
    failed = next((c for c in comparisons if c.status is not Status.PASSED), None)
    mutated = tuple(raw["mutated"])
    if failed is not None:
        status, message = failed.status, failed.message
    elif mutated:
        status, message = Status.INPUT_MUTATED, f"the call changed input(s) {', '.join(mutated)}"
    else:
        status, message = Status.PASSED, ""
    return CaseResult(
        case.index, case.workload, case.dtype, case.secret, status, message, comparisons, mutated, case.role
    )
