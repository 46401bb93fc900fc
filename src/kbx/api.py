"""The one-call Python API: `kbx.evaluate(task, source)`.

Each call starts (and stops) a trusted worker; to evaluate many candidates, hold one
`kbx.evaluation.orchestrator.pipeline.Evaluator` open instead and call its `evaluate` repeatedly.
"""

from __future__ import annotations

from pathlib import Path

from kbx.candidates.extract import extract_code
from kbx.candidates.source import Candidate
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.evaluation.result import Evaluation
from kbx.tasks.registry import load_suite, select
from kbx.tasks.spec import Task


def evaluate(
    task: str | Task,
    source: str,
    *,
    device: str = "auto",
    timeout_s: float | None = None,
    suite: Path | None = None,
    confined: bool = True,
) -> Evaluation:
    """Evaluate one candidate on one task in an isolated worker.

    Args:
        task: a task name from the suite, or a loaded Task.
        source: the candidate's Python source, or a raw LLM reply with fenced code blocks.
        device: `cpu` (Triton interpreter), `cuda`, or `auto`.
        timeout_s: wall-clock limit for the candidate; the device's default when None.
        suite: the suite folder holding `task` when it is a name (default: the shipped suite).
        confined: run the candidate in its OS confinement (namespaces, unprivileged UID, seccomp); False runs it
            as this process's user in the host's namespaces, and the row says so.

    Returns:
        The Evaluation; candidate failures are statuses in it, never exceptions.
    """
    if isinstance(task, str):
        task = select(load_suite(suite), [task])[0]
    extraction = extract_code(source, task.name) if "```" in source or "~~~" in source else None
    code = extraction.code if extraction else source
    candidate = Candidate("api", task.name, code, problem=extraction.problem if extraction else None)
    limits = Limits(timeout_s=timeout_s, confined=confined)
    with Evaluator(device, limits) as evaluator:
        return evaluator.evaluate(task, candidate)
