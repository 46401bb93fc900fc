"""The orchestrator's handle on the zygote: it forks every candidate worker ready-imported, reports their exits,
serves concurrent jobs, and when it is gone, workers start as fresh interpreters (the zygote's own side:
tests/evaluation/candidate/test_zygote.py)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from kbx.candidates.source import Candidate
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.registry import default_suite_root

RELU = (default_suite_root() / "Activation" / "relu" / "solution.py").read_text()


@pytest.fixture
def evaluator():
    with Evaluator("cpu", Limits(timeout_s=180)) as evaluator:
        yield evaluator


def passes(evaluator: Evaluator, suite, name: str = "mine") -> bool:
    evaluation = evaluator.evaluate(suite["relu"], Candidate(name, "relu", RELU))
    return evaluation.status.value == "PASSED"


def test_workers_are_forked_by_the_zygote_and_their_exits_reported(evaluator, suite):
    assert passes(evaluator, suite) and passes(evaluator, suite)
    zygote = evaluator._zygote
    assert zygote is not None and list(zygote._exits.values()) == [0, 0]


def test_one_zygote_serves_jobs_running_at_once(evaluator, suite):
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda i: passes(evaluator, suite, f"c{i}"), range(3)))
    assert results == [True, True, True] and len(evaluator._zygote._exits) == 3


def test_when_the_zygote_is_gone_workers_start_fresh(evaluator, suite):
    zygote = evaluator._zygote
    assert passes(evaluator, suite)
    zygote._process.kill()
    deadline = time.monotonic() + 30
    while zygote._alive and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not zygote._alive
    assert passes(evaluator, suite)  # started the slow way
    assert list(zygote._exits.values()) == [0]
