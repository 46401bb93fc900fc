"""An evaluator's trusted workers: judging workers grown only when every one is busy, each evaluation keeping its
own for all its cases, and one worker for the performance stages, started at the first."""

from __future__ import annotations

import threading

from kbx.evaluation.orchestrator import pipeline
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.evaluation.orchestrator.trusted_pool import TrustedPool


class _Worker:
    def __init__(self, started: list) -> None:
        started.append(self)
        self.closed = False
        self.requests: list[tuple[str, dict]] = []

    def request(self, kind: str, payload: dict) -> None:
        self.requests.append((kind, payload))

    def close(self) -> None:
        self.closed = True


def test_a_second_judge_starts_only_while_the_first_is_busy_and_evaluations_spread_over_both():
    started: list[_Worker] = []
    pool = TrustedPool(lambda: _Worker(started), judges=2)
    with pool.judging() as first:
        assert first.worker is started[0] and first.busy == 1
        with pool.judging() as second:  # the first is busy: a second starts
            assert second.worker is started[1] and len(started) == 2
            with pool.judging() as third:  # both busy, no third: the least busy (a tie: the first)
                assert third is first and first.busy == 2
                with pool.judging() as fourth:
                    assert fourth is second and second.busy == 2
    assert first.busy == second.busy == 0
    with pool.judging() as again:
        assert again is first and len(started) == 2


def test_one_judge_serves_every_evaluation_where_one_is_allowed():
    started: list[_Worker] = []
    pool = TrustedPool(lambda: _Worker(started), judges=1)
    with pool.judging() as first, pool.judging() as second:
        assert first is second and first.busy == 2 and len(started) == 1


def test_the_stages_worker_starts_once_apart_from_the_judges_and_every_worker_closes():
    started: list[_Worker] = []
    pool = TrustedPool(lambda: _Worker(started), judges=2)
    assert pool.workers() == 1
    stages = pool.stages()
    assert pool.stages() is stages and stages.worker is started[1] and pool.workers() == 2
    with pool.judging() as judging:
        assert judging.worker is started[0]
    pool.close()
    assert all(worker.closed for worker in started)


def test_every_started_worker_drops_its_caches_before_an_evaluation_runs_alone():
    started: list[_Worker] = []
    pool = TrustedPool(lambda: _Worker(started), judges=2)
    with pool.judging(), pool.judging():
        pool.stages()
    pool.forget_everywhere()
    assert len(started) == 3 and all(w.requests == [("release", {"everything": True})] for w in started)


def test_requests_to_one_worker_are_made_one_at_a_time():
    inside, most = [0], [0]

    class Slow(_Worker):
        def request(self, kind, payload):
            inside[0] += 1
            most[0] = max(most[0], inside[0])
            threading.Event().wait(0.02)
            inside[0] -= 1
            return kind

    served = TrustedPool(lambda: Slow([]), judges=1).first
    threads = [threading.Thread(target=served.request, args=("clocks", {})) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most[0] == 1


def test_an_evaluators_stages_worker_is_a_process_of_its_own():
    with pipeline.Evaluator("cpu", Limits(timeout_s=10, confined=False)) as evaluator:
        judging, stages = evaluator._pool.first, evaluator._pool.stages()
        assert stages.worker._process.pid != judging.worker._process.pid
        assert stages.request("hello", {})["device"] == "cpu"
        assert evaluator._pool.judges == 1  # on the CPU the judge competes with the candidates for the cores
    assert stages.worker._process is None and judging.worker._process is None
