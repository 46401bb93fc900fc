"""The worst bench workload of a task and the note of a task whose baseline is uncompetitive, from synthetic stored
rows (`tests.analysis.conftest`); the geometric means without those tasks are in test_headline and test_categories.

The store is `fair_store` (`tests.analysis.conftest` says what it holds).
"""

from __future__ import annotations

import pytest

from kbx.analysis.data import load_runs, task_set
from kbx.analysis.workloads import WorkloadSpeedup, uncompetitive_note, worst_workload
from kbx.store.db import Store
from tests.analysis.conftest import H100, SLOW_LIBRARY, row, timed_row


def _loaded(path):
    with Store(path) as store:
        (run,) = load_runs(store, ["run-f"])
    return run, run.outcomes(task_set([run]))


def test_the_worst_workload_is_the_slot_with_the_lowest_speedup_against_each_baseline():
    relu = timed_row("relu", {"bench/float32": (2.0, 1.5), "bench/float16": (0.8, 1.0)}, eager=1.6, compile_=1.2)
    assert worst_workload(relu, "eager") == WorkloadSpeedup("bench/float16", 0.8)
    assert worst_workload(relu, "compile") == WorkloadSpeedup("bench/float16", 1.0)
    assert worst_workload(relu, "eager").format() == "0.80x bench/float16"


def test_a_slot_without_a_speedup_is_not_the_worst_and_an_untimed_row_has_none():
    untimed_compile = timed_row("relu", {"a/float32": (2.0, None), "b/float32": (3.0, 4.0)}, eager=2.4, compile_=4.0)
    assert worst_workload(untimed_compile, "compile") == WorkloadSpeedup("b/float32", 4.0)
    assert worst_workload(row("relu", "MISMATCH"), "eager") is None
    with pytest.raises(ValueError, match="eager or compile"):
        worst_workload(untimed_compile, "candidate")


def test_the_uncompetitive_note_comes_from_the_rows_performance():
    assert uncompetitive_note(timed_row("sum", {"b/float32": (9.0, 9.0)}, uncompetitive="why", eager=9.0,
                                        compile_=9.0)) == "why"
    assert uncompetitive_note(row("relu", "PASSED", eager=2.0, gpu=H100)) == ""  # timed before tasks could say
    assert uncompetitive_note(row("relu", "MISMATCH")) == ""


def test_an_outcome_carries_its_best_candidates_worst_slots_and_its_tasks_note(fair_store):
    _, outcomes = _loaded(fair_store)
    by_task = {o.task: o for o in outcomes}
    assert by_task["relu"].worst("eager") == WorkloadSpeedup("bench/float16", 0.8)
    assert by_task["relu"].worst("compile") == WorkloadSpeedup("bench/float16", 1.0)
    assert by_task["sum"].uncompetitive == SLOW_LIBRARY and by_task["relu"].uncompetitive == ""
    assert by_task["matmul"].worst_eager is None
