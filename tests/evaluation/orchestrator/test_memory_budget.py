"""Timed evaluations admitted to a GPU by their bench workloads' memory: each waits until it fits beside those
already admitted, and one larger than the budget runs when nothing else holds any."""

from __future__ import annotations

import threading
import time

from kbx.evaluation.orchestrator.memory_budget import (
    PEAK_FACTOR,
    SHARE,
    MemoryBudget,
    evaluation_bytes,
    memory_budget,
)


def _holder(budget: MemoryBudget, nbytes: int, entered: threading.Event, leave: threading.Event) -> threading.Thread:
    def hold() -> None:
        with budget.hold(nbytes):
            entered.set()
            leave.wait()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    return thread


def test_a_request_waits_until_it_fits_beside_those_admitted():
    budget = MemoryBudget(100)  # 80 bytes may be held
    assert budget.total == int(100 * SHARE)
    entered, leave = threading.Event(), threading.Event()
    first = _holder(budget, 50, entered, leave)
    assert entered.wait(5)
    second_in = threading.Event()
    second = _holder(budget, 40, second_in, leave)
    assert not second_in.wait(0.2) and budget.held == 50  # 50 + 40 > 80: it waits
    with budget.hold(30) as waited:  # 50 + 30 fits at once
        assert waited < 0.1 and budget.held == 80
    leave.set()
    first.join(5), second.join(5)
    assert second_in.is_set() and budget.held == 0


def test_one_larger_than_the_budget_runs_alone_and_nothing_waits_for_zero():
    budget = MemoryBudget(100)
    entered, leave = threading.Event(), threading.Event()
    small = _holder(budget, 10, entered, leave)
    assert entered.wait(5)
    with budget.hold(0) as waited:
        assert waited < 0.1
    big_in, big_leaves = threading.Event(), threading.Event()
    big = _holder(budget, 500, big_in, big_leaves)
    assert not big_in.wait(0.2)  # waits for the small one to end
    leave.set()
    assert big_in.wait(5)
    began = time.monotonic()
    small.join(5)
    assert budget.held == 500 and time.monotonic() - began < 5
    big_leaves.set()
    big.join(5)
    assert budget.held == 0


def test_small_requests_go_ahead_of_a_waiting_large_one_only_for_a_while():
    budget = MemoryBudget(100, patience_s=0.3)  # 80 bytes may be held
    leave_first, leave_second = threading.Event(), threading.Event()
    first_in, second_in, large_in = threading.Event(), threading.Event(), threading.Event()
    first = _holder(budget, 30, first_in, leave_first)
    assert first_in.wait(5)
    leave_large = threading.Event()
    large = _holder(budget, 70, large_in, leave_large)
    time.sleep(0.05)
    with budget.hold(20) as waited:  # fits beside the first while the large one has waited less than its patience
        assert waited < 0.1
    time.sleep(0.4)
    second = _holder(budget, 20, second_in, leave_second)  # fits, but the large one has waited long enough
    assert not second_in.wait(0.3) and not large_in.is_set()
    leave_first.set()  # 70 fits once the first is gone: the large one goes first, then the small one beside it
    assert large_in.wait(5) and not second_in.wait(0.2)
    assert budget.held == 70
    leave_large.set(), leave_second.set()
    for thread in (first, large, second):
        thread.join(5)
    assert second_in.is_set() and budget.held == 0


def test_an_evaluation_holds_a_multiple_of_its_largest_known_bench_workload():
    footprint = {"bench": 100, "bench_long_rows": 300}
    assert evaluation_bytes(footprint, ("bench", "bench_long_rows")) == PEAK_FACTOR * 300
    assert evaluation_bytes(footprint, ("bench",)) == PEAK_FACTOR * 100  # a workload the GPU left out
    assert evaluation_bytes({}, ("bench",)) == 0  # unknown: nothing held, the run alone still catches it


def test_every_evaluator_of_a_process_shares_one_budget_per_gpu():
    assert memory_budget("7", 1000) is memory_budget("7", 1000) is not memory_budget("6", 1000)
