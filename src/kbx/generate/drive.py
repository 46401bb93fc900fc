"""The bridge between `kbx run` and the generating methods: opens the provider before the run starts (so a missing
key fails at once) and hands the runner a function that drives the chains with the runner's `evaluate`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from kbx.candidates.source import Candidate
from kbx.generate.http import HttpClient
from kbx.generate.methods import Session
from kbx.generate.providers import Throttled, open_provider
from kbx.generate.records import RunRecords, StoredGenerations
from kbx.generate.settings import GenerationSettings
from kbx.tasks.spec import Task

if TYPE_CHECKING:
    from kbx.methods.registry import Method

Evaluate = Callable[[Task, Candidate], dict[str, Any]]
RunFunction = Callable[[Evaluate, RunRecords, str, "str | None", int], dict[str, Any]]


def generating_run(
    method: Method, settings: GenerationSettings, tasks: Sequence[Task], suite: Sequence[Task],
    stored: StoredGenerations | None = None, progress: TextIO | None = sys.stderr,
) -> tuple[RunFunction, tuple[str, ...], int]:
    """(the function the runner calls with its evaluate callable, the task names, the evaluations planned at most).
    `settings` are the method's own (`Method.settings`: defaults filled in)."""
    client = HttpClient(timeout_s=settings.request_timeout_s)
    provider = Throttled(open_provider(settings.model, client, stored), settings.concurrency)
    by_name = {t.name: t for t in suite}

    def say(line: str) -> None:
        if progress is not None:
            print(line, file=progress, flush=True)

    def run(evaluate: Evaluate, opened: RunRecords, run_id: str, gpu: str | None,
            slots: int) -> dict[str, Any]:
        session = Session(method, settings, provider, evaluate, opened, run_id, by_name, gpu, say)
        outcomes = session.run(tasks, slots)
        return {
            "provider": provider.name,
            "settings": settings.to_json(),
            "new_model_calls": provider.calls,
            "reused_generations": session.reused,
            **opened.usage(run_id),
            **method.run_summary(opened.rows(run_id), settings),
            "chains": [o.to_json() for o in outcomes],
        }

    return run, tuple(t.name for t in tasks), len(tasks) * settings.samples * method.steps(settings)
