"""A KernelBench problem whose model breaks at the shrunk sizes is judged on a GPU at its published size alone."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from kbx.errors import ReferenceFailed
from kbx.evaluation.cases import plan_cases
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.published_only import bench_only, noted, shrinking_breaks
from kbx.evaluation.orchestrator.trusted_pool import Served
from kbx.tasks.registry import open_suite

FIXTURES = Path(__file__).parents[2] / "fixtures" / "kernelbench"


@pytest.fixture(scope="module")
def problem():
    return next(t for t in open_suite(f"kernelbench:{FIXTURES}").tasks if t.name == "level2/1_Linear_ReLU")


def breaking(on: str, message: str = "RuntimeError: Given normalized_shape=[11]"):
    asked = []

    def reference(case):
        asked.append(case.workload)
        if case.role == on:
            raise ReferenceFailed(f"its reference failed on {case.workload}/float32: {message}")

    return reference, asked


def test_a_problem_whose_smoke_breaks_is_judged_on_its_bench_alone(problem):
    cases = plan_cases(problem, "cuda", 7)
    reference, asked = breaking("smoke")
    why = shrinking_breaks(problem, cases, reference)
    assert "normalized_shape" in why and asked == ["smoke"]  # stops at the first failure
    kept = bench_only(cases)
    assert kept and {c.role for c in kept} == {"bench"} and [c.index for c in kept] == list(range(len(kept)))
    assert noted("", why).startswith("judged at the problem's published size alone")


def test_a_problem_that_runs_every_size_and_kbx_tasks_keep_every_case(problem, suite):
    cases = plan_cases(problem, "cuda", 7)
    reference, asked = breaking("none")
    assert shrinking_breaks(problem, cases, reference) is None
    assert len(asked) == len({c.workload for c in cases if c.role != "bench"})  # the first case of each
    assert shrinking_breaks(suite["relu"], plan_cases(suite["relu"], "cuda", 7), reference) is None


def test_out_of_memory_is_no_property_of_the_sizes(problem):
    reference, _ = breaking("smoke", "OutOfMemoryError: CUDA out of memory")
    with pytest.raises(ReferenceFailed):
        shrinking_breaks(problem, plan_cases(problem, "cuda", 7), reference)


class FakeTrusted:
    def __init__(self) -> None:
        self.requests = 0

    def request(self, kind, payload):
        self.requests += 1
        if payload["case"]["role"] != "bench":
            raise ReferenceFailed("its reference failed on smoke/float32: RuntimeError: shapes")


def test_the_evaluator_plans_the_bench_cases_once_it_knows_and_asks_once_per_task(problem):
    evaluator = Evaluator.__new__(Evaluator)  # only what planning uses: no workers started
    evaluator.device, evaluator.secret_seed, evaluator._shrinking_breaks = "cuda", 7, {}
    trusted = FakeTrusted()
    evaluator._pool = SimpleNamespace(first=Served(trusted))  # type: ignore[arg-type]
    cases, _ = evaluator._plan(problem, "all")
    assert {c.role for c in cases} == {"bench"}
    correctness, _ = evaluator._plan(problem, "correctness")  # a two-part run's first part checks the bench too
    assert {c.role for c in correctness} == {"bench"} and trusted.requests == 1
    evaluator.device = "cpu"
    assert {c.role for c in evaluator._plan(problem, "all")[0]} != {"bench"}  # a CPU has no bench: NOT JUDGED there
