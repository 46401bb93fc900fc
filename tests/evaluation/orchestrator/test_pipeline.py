"""The Evaluator's start: confinement is probed first, and a machine that cannot confine stops with one line."""

from __future__ import annotations

import pytest

from kbx.errors import KbxError
from kbx.evaluation.orchestrator import pipeline
from kbx.evaluation.orchestrator.sandbox import Limits


def test_a_machine_that_cannot_confine_stops_before_any_worker_starts(monkeypatch):
    monkeypatch.setattr(pipeline, "unavailable", lambda spec: "PermissionError: unshare: Operation not permitted")
    monkeypatch.setattr(pipeline, "TrustedWorker", lambda *a: pytest.fail("no worker may start"))
    with pytest.raises(KbxError, match="--unconfined"):
        pipeline.Evaluator("cpu", Limits(timeout_s=10))


def test_unconfined_rows_say_so(monkeypatch):
    monkeypatch.setattr(pipeline, "unavailable", lambda spec: pytest.fail("no probe without confinement"))
    with pipeline.Evaluator("cpu", Limits(timeout_s=10, confined=False)) as evaluator:
        assert evaluator.environment["confinement"] == "none (--unconfined)"
