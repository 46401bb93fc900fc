"""On a GPU: hostile and unusual candidates (hangs, crashes, autotuned kernels) get the same statuses as on the CPU."""

from __future__ import annotations

import pytest

from kbx.candidates.source import Candidate
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.suite_check import expected_status
from tests.conftest import FIXTURES

pytestmark = pytest.mark.gpu
HOSTILE = sorted((FIXTURES / "hostile").glob("*.py"))


@pytest.fixture(scope="module")
def gpu_evaluator():
    with Evaluator("cuda", Limits(timeout_s=30)) as evaluator:
        yield evaluator


@pytest.mark.parametrize("path", HOSTILE, ids=lambda p: p.stem)
def test_hostile_candidate_on_gpu(gpu_evaluator, suite, path):
    evaluation = gpu_evaluator.evaluate(suite["gelu"], Candidate(str(path), "gelu", path.read_text()))
    assert evaluation.status.value == expected_status(path), evaluation.message
