"""How a candidate worker's run becomes a status when it did not report every case (DESIGN §5: a crash, hang, OOM
or `os._exit` becomes a status): read from its events and its exit, from outside its process."""

from __future__ import annotations

import signal
from typing import Any

from kbx.evaluation.cases import Case
from kbx.evaluation.orchestrator.sandbox import Limits, WorkerRun
from kbx.evaluation.protocol import (
    TIMED,
    CaseDone,
    CaseFailed,
    CaseStart,
    Event,
    Finished,
    Imported,
    ImportFailed,
    Started,
)
from kbx.status import Status


def call_failure(run: WorkerRun, cases: list[Case], limits: Limits) -> tuple[Status, str, str] | None:
    """The status of a worker that did not call the candidate on every case, or None if it did."""
    events = run.events
    current = _current_case(events, cases)
    if run.timed_out:
        return Status.TIMEOUT, f"no result within {limits.timeout_s:g}s{current}", ""
    for kind in (ImportFailed, CaseFailed):
        failure = next((e for e in reversed(events) if isinstance(e, kind)), None)
        if isinstance(failure, (ImportFailed, CaseFailed)):
            status = _status_or(failure.status, Status.RUNTIME_ERROR)
            if isinstance(failure, ImportFailed):
                where = "while importing the candidate"
            elif failure.index == TIMED:
                where = "while being timed"
            else:
                where = current.removeprefix(", ")
            return status, _placed(failure.error, where), failure.traceback
    done = {e.index for e in events if isinstance(e, CaseDone)}
    if any(isinstance(e, Finished) for e in events) and all(c.index in done for c in cases):
        return None
    code = run.returncode
    if code is not None and code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        if name == "SIGXCPU":
            return Status.TIMEOUT, f"CPU-time limit exceeded{current}", ""
        hint = " (possibly out of memory)" if name == "SIGKILL" else ""
        return Status.CRASHED, f"worker killed by {name}{hint}{current}", ""
    if not any(isinstance(e, Started) for e in events):
        return Status.CRASHED, f"worker failed to start (exit code {code}): {run.output[-300:]}", ""
    return Status.CRASHED, f"worker exited with code {code} before finishing{current}", ""


def unreadable(cases: list[Case], judged: dict[int, dict[str, Any]]) -> tuple[Status, str, str] | None:
    """A case whose saved outputs could not be read back (the file is the candidate process's to spoil)."""
    for case in cases:
        if "error" in judged.get(case.index, {}):
            error = judged[case.index]["error"]
            return Status.CRASHED, f"the saved outputs of {case.label()} could not be read: {error}", ""
    return None


def unjudged(cases: list[Case], judged: dict[int, dict[str, Any]]) -> tuple[Status, str, str] | None:
    """A worker that claims to have finished every case but left one without saved outputs."""
    for case in cases:
        if case.index not in judged:
            return Status.CRASHED, f"the worker reported {case.label()} done but saved no output for it", ""
    return None


def _placed(error: str, where: str) -> str:
    """The error with where it happened at the end of its first line: a CUDA error's text runs to five lines of
    advice, which a one-line report cuts, and the case it failed on went with them."""
    first, _, rest = error.partition("\n")
    return f"{first} ({where})" + (f"\n{rest}" if rest else "")


def _current_case(events: list[Event], cases: list[Case]) -> str:
    started = [e.index for e in events if isinstance(e, CaseStart)]
    if not started or not 0 <= started[-1] < len(cases):
        return ", before the first case" if any(isinstance(e, Imported) for e in events) else ""
    return f", during {cases[started[-1]].label()}"


def _status_or(value: Any, default: Status) -> Status:
    try:
        return Status(value)
    except ValueError:
        return default
