"""Chains without the evaluator: a scripted provider and a fake `evaluate`, on a real store."""

from __future__ import annotations

import threading
import time

import pytest

from kbx.generate.http import ProviderError
from kbx.generate.methods import Session
from kbx.generate.providers import Reply, Request, Usage
from kbx.generate.settings import GenerationSettings
from kbx.methods import get_method
from kbx.store.db import Store


class FakeProvider:
    name = "fake:model"

    def __init__(self, answer):
        self.answer = answer
        self.requests: list[Request] = []

    def complete(self, request: Request) -> Reply:
        self.requests.append(request)
        return Reply(self.answer(request), Usage(1, 1))


def _row(task, candidate, status="MISMATCH"):
    return {"task": task.name, "candidate": candidate.name, "candidate_hash": candidate.hash, "status": status,
            "message": "x", "cases": [], "provenance": dict(candidate.provenance)}


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "k.db") as opened:
        opened.begin_run("r", method="refine", model="fake:model", device="cpu", git_sha=None, harness="h",
                         config={}, environment={}, secret_seed=1)
        yield opened


def _session(store, suite, provider, evaluate, method="refine", **settings):
    chosen = get_method(method)
    resolved = chosen.settings(GenerationSettings("fake:model", **settings))
    return Session(chosen, resolved, provider, evaluate, store, "r", suite, None)


def test_a_refused_request_ends_its_chain_only(store, suite):
    def answer(request):
        if request.key.task == "relu" and request.key.iteration == 1:
            raise ProviderError("HTTP 400: context length exceeded", 400)
        return "prose"

    provider = FakeProvider(answer)
    outcomes = _session(store, suite, provider, _row, iterations=3).run([suite["relu"], suite["add"]], 1)
    by_task = {o.task: o for o in outcomes}
    assert by_task["relu"].stopped.startswith("provider: HTTP 400") and by_task["relu"].steps == 1
    assert by_task["add"].stopped == "iterations" and by_task["add"].steps == 3


def test_an_auth_error_stops_the_run(store, suite):
    def answer(request):
        raise ProviderError("HTTP 401: bad key", 401)

    with pytest.raises(ProviderError, match="401"):
        _session(store, suite, FakeProvider(answer), _row, iterations=3).run([suite["relu"], suite["add"]], 1)


def test_chains_of_different_tasks_overlap_model_calls_and_evaluations(store, suite):
    """While one chain's candidate is evaluated, another chain's model call is in flight."""
    state = {"evaluating": 0, "overlapped": False}
    lock = threading.Lock()

    def answer(request):
        with lock:
            state["overlapped"] |= state["evaluating"] > 0
        time.sleep(0.05)
        return "prose"

    def evaluate(task, candidate):
        with lock:
            state["evaluating"] += 1
        time.sleep(0.2)
        with lock:
            state["evaluating"] -= 1
        return _row(task, candidate)

    tasks = [suite[name] for name in ("relu", "add", "gelu", "mul")]
    _session(store, suite, FakeProvider(answer), evaluate, iterations=3).run(tasks, 1)
    assert state["overlapped"]
    assert len(store.generations("r")) == 12


def test_stored_steps_are_not_asked_or_evaluated_again(store, suite):
    evaluated: list[str] = []

    def evaluate(task, candidate):
        evaluated.append(candidate.name)
        row = _row(task, candidate)
        store.add_evaluation("r", row, candidate.code, "key-" + candidate.name)
        return row

    first = FakeProvider(lambda request: "prose")
    _session(store, suite, first, evaluate, method="sample", samples=3).run([suite["relu"]], 1)
    second = FakeProvider(lambda request: "prose")
    session = _session(store, suite, second, evaluate, method="sample", samples=3)
    session.run([suite["relu"]], 1)
    assert len(first.requests) == 3 and second.requests == [] and session.reused == 3
    assert sorted(evaluated) == ["relu#s0", "relu#s1", "relu#s2"]


def test_refine_keeps_the_fastest_correct_attempt_and_tells_the_model(store, suite):
    """wrong, compile error, correct, faster, wrong, wrong: the best is the faster one, and feedback says so."""
    verdicts = [("MISMATCH", None), ("COMPILE_ERROR", None), ("PASSED", 1.0), ("PASSED", 1.5), ("MISMATCH", None),
                ("MISMATCH", None)]

    def evaluate(task, candidate):
        status, speedup = verdicts[candidate.provenance["iteration"]]
        return {**_row(task, candidate, status), "speedup_eager": speedup, "performance": None}

    provider = FakeProvider(lambda request: f"attempt {request.key.iteration}")
    (outcome,) = _session(store, suite, provider, evaluate, iterations=6).run([suite["relu"]], 1)
    assert outcome.best == "relu#s0.i3" and outcome.steps == 6 and outcome.stopped == "iterations"
    assert "best correct kernel so far is attempt 4 (1.50x vs eager)" in provider.requests[-1].messages[-1].content
    assert "is correct" in provider.requests[4].messages[-1].content


def test_a_task_that_cannot_judge_ends_its_chain_only(store, suite):
    from kbx.errors import ReferenceFailed

    def evaluate(task, candidate):
        if task.name == "relu":
            raise ReferenceFailed("task relu: its reference failed on bench/float32: RuntimeError: cusolver")
        return _row(task, candidate)

    provider = FakeProvider(lambda request: "```python\nprint(1)\n```")
    outcomes = _session(store, suite, provider, evaluate, iterations=3).run([suite["relu"], suite["add"]], 1)
    by_task = {o.task: o for o in outcomes}
    assert by_task["relu"].stopped.startswith("unjudged: task relu") and by_task["relu"].steps == 0
    assert by_task["add"].stopped == "iterations" and by_task["add"].steps == 3
