"""On a GPU: every solution passes on every workload, bench included; every wrong candidate still fails, the
GPU-only ones (`DEVICE = "cuda"`: a TF32 dot, a race, a launch limit, 32-bit offsets) included."""

from __future__ import annotations

import pytest

from kbx.candidates.source import Candidate
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.suite_check import device_reason, expected_status, got_expected, judged_on
from tests.suite.test_integrity import CANDIDATES

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def gpu_evaluator():
    with Evaluator("cuda", Limits(timeout_s=300)) as evaluator:
        yield evaluator


@pytest.mark.parametrize(
    ("task", "path"), CANDIDATES, ids=[f"{t.name}/{p.parent.name}/{p.stem}" for t, p in CANDIDATES]
)
def test_candidate_on_gpu(gpu_evaluator, task, path):
    if not judged_on(path, "cuda"):
        pytest.skip(f"{device_reason(path)}: the GPU's eager reference makes the same mistake")
    evaluation = gpu_evaluator.evaluate(task, Candidate(str(path), task.name, path.read_text()))
    assert evaluation.device == "cuda"
    if path.name == "solution.py":
        assert any(c.workload.startswith("bench") or "bench" in c.workload for c in evaluation.cases)
    assert got_expected(path, evaluation.status.value), f"expected {expected_status(path)}: {evaluation.message}"
