"""On a GPU: the performance stage times a solution against eager and compiled baselines, and catches a candidate
that stops computing once it is being timed."""

from __future__ import annotations

import pytest

from kbx.candidates.source import Candidate
from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from tests.conftest import FIXTURES

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def timed_evaluator():
    settings = TimingSettings(rounds=3, budget_s=0.3, min_samples=10)
    with Evaluator("cuda", Limits(timeout_s=300), timing=settings) as evaluator:
        yield evaluator


def test_a_solution_gets_speedups_and_a_speed_of_light_fraction(timed_evaluator, suite):
    task = suite["relu"]
    path = task.path / "solution.py"
    evaluation = timed_evaluator.evaluate(task, Candidate(str(path), task.name, path.read_text()))
    row = evaluation.to_json()
    assert row["status"] == "PASSED", row["message"]
    assert row["speedup_eager"] > 0 and row["speedup_compile"] > 0
    assert 0 < row["sol_fraction"] < 1.25
    perf = row["performance"]
    assert perf["complete"] and perf["environment"]["clocks_start"] and perf["environment"]["peaks"]
    for workload in perf["workloads"]:
        assert len(workload["rounds"]["candidate"]) == 3
        assert len(workload["rounds"]["eager"]) == 3


def test_a_candidate_honest_only_while_checked_is_rejected_when_timed(timed_evaluator, suite):
    path = FIXTURES.parent / "exploits" / "honest_until_timing.py"
    evaluation = timed_evaluator.evaluate(suite["relu"], Candidate(str(path), "relu", path.read_text()))
    assert evaluation.status.value in {"REJECTED_RUNTIME", "MISMATCH"}, evaluation.message


def _candidate_ms(evaluation) -> list[float]:
    assert evaluation.status.value == "PASSED", evaluation.message
    return [w["median_ms"]["candidate"] for w in evaluation.performance["workloads"]]


def _evaluate_file(evaluator, task, path):
    return evaluator.evaluate(task, Candidate(str(path), task.name, path.read_text()))


def test_a_candidate_sleeping_on_the_host_is_timed_slower(timed_evaluator, suite):
    task = suite["relu"]
    honest = _candidate_ms(_evaluate_file(timed_evaluator, task, task.path / "solution.py"))
    sleepy = _candidate_ms(_evaluate_file(timed_evaluator, task, FIXTURES / "sleeps_in_python.py"))
    assert all(s > h + 1.5 for s, h in zip(sleepy, honest)), (sleepy, honest)


def test_a_content_keyed_cache_never_hits_while_timed(timed_evaluator, suite):
    # With new values on every timed call the cache misses every time. The fixture keeps every miss, so on the
    # 2 GiB bench tensors it runs out of memory (seen on an H200, 2026-11-22); where it does not, it must not be
    # timed faster than the honest solution.
    task = suite["softmax"]
    honest = _candidate_ms(_evaluate_file(timed_evaluator, task, task.path / "solution.py"))
    evaluation = _evaluate_file(timed_evaluator, task, FIXTURES / "cache_by_content.py")
    if evaluation.status.value == "OUT_OF_MEMORY":
        return
    cached = _candidate_ms(evaluation)
    assert all(c > 0.9 * h for c, h in zip(cached, honest)), (cached, honest)


def test_candidates_evaluated_side_by_side_are_timed_one_at_a_time(timed_evaluator, suite):
    """Three evaluations at once on one GPU: their cases share it, their performance stages take turns."""
    from concurrent.futures import ThreadPoolExecutor

    task = suite["relu"]
    path = task.path / "solution.py"
    with ThreadPoolExecutor(3) as pool:
        evaluations = list(pool.map(
            lambda _: timed_evaluator.evaluate(task, Candidate(str(path), task.name, path.read_text())), range(3)
        ))
    for evaluation in evaluations:
        assert evaluation.status.value == "PASSED", evaluation.message
        assert evaluation.performance["complete"]
    spans = sorted((e.performance["started_at"], e.performance["started_at"] + e.performance["wall_s"])
                   for e in evaluations)
    assert all(end <= next_start + 0.01 for (_, end), (next_start, _) in zip(spans, spans[1:])), spans


def test_the_two_parts_of_a_timed_run_split_the_cases_at_the_bench_workloads(timed_evaluator, suite):
    from kbx.evaluation.orchestrator.pipeline import combine

    task = suite["relu"]
    path = task.path / "solution.py"
    candidate = Candidate(str(path), task.name, path.read_text())
    first = timed_evaluator.evaluate(task, candidate, part="correctness")
    assert first.status.value == "PASSED" and first.performance is None
    assert first.cases and all(c.role != "bench" for c in first.cases)
    second = timed_evaluator.evaluate(task, candidate, part="timing")
    assert second.status.value == "PASSED" and second.performance["complete"]
    assert second.cases and all(c.role == "bench" and c.secret for c in second.cases)
    whole = combine(first, second)
    assert len(whole.cases) == len(first.cases) + len(second.cases) and whole.to_json()["speedup_eager"] > 0
