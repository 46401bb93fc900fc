"""The terminal summary of a run: counts per category, then per status."""

from __future__ import annotations

from kbx.summary import summary_table


def _row(category: str, status: str, call_ok: bool) -> dict:
    return {"category": category, "status": status, "call_ok": call_ok, "exe_ok": status == "PASSED"}


def test_counts_per_category_and_overall():
    rows = [_row("Math", "PASSED", True), _row("Activation", "MISMATCH", True),
            _row("Activation", "PASSED", True), _row("Activation", "COMPILE_ERROR", False)]
    lines = summary_table(rows).splitlines()
    assert lines[0].split() == ["category", "evals", "call_ok", "exe_ok"]
    assert set(lines[1]) == {"-"} and len(lines[1]) == len(lines[0])
    assert lines[2].split() == ["Activation", "3", "2/3", "1/3"]
    assert lines[3].split() == ["Math", "1", "1/1", "1/1"]
    assert set(lines[4]) == {"-"}
    assert lines[5].split() == ["all", "4", "3/4", "2/4"]
    assert lines[-1] == "status: COMPILE_ERROR 1, MISMATCH 1, PASSED 2"


def test_the_columns_line_up():
    rows = [_row("Normalization", "PASSED", True), _row("Math", "PASSED", True)]
    table = summary_table(rows).splitlines()[:6]
    assert len({len(line) for line in table}) == 1
