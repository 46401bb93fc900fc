"""The worker's time limit: the candidate's own time counts, the orchestrator's answers do not."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest

from kbx.evaluation.orchestrator.sandbox import Limits, run_worker
from kbx.evaluation.protocol import Event, Imported


@pytest.mark.slow
def test_a_long_answer_is_not_charged_to_the_candidate(suite):
    """An answer can wait minutes for a GPU that another candidate's performance stage holds; the worker idles
    meanwhile, and must not be killed as TIMEOUT for it."""
    task = suite["relu"]
    limit = 20.0

    def on_event(event: Event) -> str | None:
        if isinstance(event, Imported):
            time.sleep(limit + 5)
            return "stop"
        return None

    with tempfile.TemporaryDirectory() as scratch:
        run = run_worker(task.path, (task.path / "solution.py").read_text(), "cpu", Limits(timeout_s=limit),
                         Path(scratch) / "job", on_event)
    assert not run.timed_out
    assert run.elapsed_s > limit and run.judged_s >= limit
    assert [e.name for e in run.events] == ["started", "imported", "finished"]
