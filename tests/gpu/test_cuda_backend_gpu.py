"""On a GPU: the CUDA backend end to end (docs/evaluation.md, "CUDA backend"). Each fixture of
tests/fixtures/cuda/ gets the status it declares (`EXPECT`; an honest one, none: PASSED); the extension's kernels
are the candidate's own in the launch trace; a second evaluation of the same sources builds nothing. None of this
has run yet: no GPU was available when it was written."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbx.candidates.source import Candidate
from kbx.evaluation.orchestrator.extensions import ExtensionCache
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.status import Status
from kbx.tasks.suite_check import expected_status

pytestmark = pytest.mark.gpu

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures" / "cuda").glob("*.py"))


@pytest.fixture(scope="module")
def gpu_evaluator(tmp_path_factory):
    with Evaluator("cuda", Limits(timeout_s=300, compile_timeout_s=900), timing=None) as evaluator:
        evaluator.extensions.cache = ExtensionCache(tmp_path_factory.mktemp("extensions"))
        yield evaluator


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_each_cuda_fixture_gets_its_status(gpu_evaluator, suite, path):
    evaluation = gpu_evaluator.evaluate(suite["relu"], Candidate(str(path), "relu", path.read_text()))
    expected = _expected(path)
    assert evaluation.status.value == expected, (evaluation.message, evaluation.worker_output[-2000:])


def _expected(path: Path) -> str:
    """The fixture's `EXPECT`; an honest one declares none."""
    try:
        return expected_status(path)
    except ValueError:
        return "PASSED"


def test_the_same_sources_build_once_and_pass_again(gpu_evaluator, suite):
    path = FIXTURES[[p.stem for p in FIXTURES].index("relu_raw")]
    for _ in range(2):
        evaluation = gpu_evaluator.evaluate(suite["relu"], Candidate(str(path), "relu", path.read_text()))
        assert evaluation.status is Status.PASSED, evaluation.message
    assert evaluation.phases["build"] < 1.0
