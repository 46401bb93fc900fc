"""Per category x per method cells and the tasks no method solves, on outcomes built by hand
(`tests.analysis.conftest.outcome`) and on the stored `fair_store`."""

from __future__ import annotations

import math

import pytest

from kbx.analysis.categories import category_table, unsolved
from kbx.analysis.data import load_runs, task_set
from kbx.store.db import Store
from tests.analysis.conftest import outcome

TIMED = [
    outcome("relu", eager=2.0, compile_=1.5),
    outcome("gelu", eager=0.5, compile_=0.25),
    outcome("sum", "Reduce", correct=False),
    outcome("max", "Reduce", eager=4.0, compile_=2.0),
]
UNTIMED = [outcome("relu"), outcome("gelu", correct=False, call_ok=False), outcome("sum", "Reduce"),
           outcome("max", "Reduce", correct=False)]


def test_categories_are_sorted_and_methods_keep_their_order():
    table = category_table({"b": TIMED, "a": UNTIMED}, resamples=20)
    assert list(table) == ["Activation", "Reduce"]
    assert [list(cells) for cells in table.values()] == [["b", "a"], ["b", "a"]]


def test_each_cell_counts_only_its_categorys_tasks():
    table = category_table({"b": TIMED, "a": UNTIMED}, resamples=20)
    activation, reduce = table["Activation"]["b"], table["Reduce"]["b"]
    assert (activation.tasks, activation.correctness.value, activation.fast_1.value) == (2, 1.0, 0.5)
    assert (reduce.tasks, reduce.correctness.value, reduce.fast_1.value) == (2, 0.5, 0.5)
    assert activation.geomean_eager == pytest.approx(1.0) and reduce.geomean_eager == pytest.approx(4.0)
    assert activation.geomean_compile == pytest.approx(math.sqrt(0.375)) and reduce.geomean_compile == 2.0
    assert table["Activation"]["a"].call_rate == 0.5


def test_fast_1_of_a_method_never_timed_is_unknown_in_every_category():
    table = category_table({"b": TIMED, "a": UNTIMED}, resamples=20)
    assert table["Reduce"]["a"].fast_1.value is None and table["Activation"]["a"].fast_1.value is None
    assert table["Reduce"]["a"].correctness.value == 0.5


def test_the_unsolved_tasks_are_those_no_method_got_correct():
    assert unsolved({"b": TIMED, "a": UNTIMED}) == []  # sum: only a solved it
    assert unsolved({"b": TIMED}) == [("Reduce", "sum")]
    assert unsolved({"a": UNTIMED}) == [("Activation", "gelu"), ("Reduce", "max")]


def test_categories_show_both_geomeans(fair_store):
    with Store(fair_store) as store:
        (run,) = load_runs(store, ["run-f"])
    table = category_table({"m": run.outcomes(task_set([run]))}, resamples=50)
    reduce, activation = table["Reduce"]["m"], table["Activation"]["m"]
    assert reduce.geomean_eager == pytest.approx(100.0) and reduce.geomean_eager_competitive is None
    assert reduce.geomean_compile == pytest.approx(90.0) and reduce.geomean_compile_competitive is None
    assert activation.geomean_eager == activation.geomean_eager_competitive == pytest.approx(math.sqrt(1.6 * 0.8))
