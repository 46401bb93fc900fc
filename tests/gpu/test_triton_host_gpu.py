"""On a GPU: the harness compiles Triton's host code (its driver binding, the launchers workers reported) into its
own folder, and the next candidate worker starts with a copy of it; candidates still pass."""

from __future__ import annotations

import json

import pytest

from kbx.candidates.source import Candidate
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits

pytestmark = pytest.mark.gpu


def test_launchers_a_worker_needed_are_built_for_the_next(suite, tmp_path, monkeypatch):
    monkeypatch.setenv("KBX_CACHE_DIR", str(tmp_path))
    task = suite["relu"]
    candidate = Candidate("solution", "relu", (task.path / "solution.py").read_text())
    with Evaluator("cuda", Limits(timeout_s=300), timing=None) as evaluator:
        first = evaluator.evaluate(task, candidate, part="correctness")
        host = evaluator._triton_host
        assert host is not None
        host.close(wait_s=120)  # the builds queued by the first worker's report
        folder = host.folder
        second = evaluator.evaluate(task, candidate, part="correctness")
    assert first.status.value == second.status.value == "PASSED", (first.message, second.message)
    assert list(folder.glob("*/cuda_utils*.so"))
    from triton.backends.nvidia import driver

    if not hasattr(driver, "make_launcher"):  # a Triton that launches through one generic function (3.7 on)
        return
    assert list(folder.glob("*/__triton_launcher*.so"))
    signatures = json.loads((folder / "launchers.json").read_text())
    assert any(s[0].startswith("*") for s in signatures), signatures
