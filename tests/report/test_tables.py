"""The terminal and Markdown tables show, beside each geometric mean, the one over competitive baselines only, and
per task its worst bench workload (`fair_store`, `tests.analysis.conftest`)."""

from __future__ import annotations

from kbx.analysis.report import build_report
from kbx.report.tables import (
    COMPETITIVE,
    category_speed_text,
    headline_table,
    leaderboard,
    report_text,
    task_speed_text,
)
from kbx.store.db import Store


def _report(path, runs=("run-f",)):
    with Store(path) as store:
        return build_report(store, list(runs), resamples=50)


def _line(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(start))


def test_the_headline_shows_both_geomeans_and_names_what_the_competitive_one_leaves_out(fair_store):
    text = headline_table(_report(fair_store))
    header = next(line for line in text.splitlines() if "geomean vs eager" in line)
    assert header.index("geomean vs eager") < header.index(f"vs eager, {COMPETITIVE}") < header.index(
        "geomean vs compile") < header.index(f"vs compile, {COMPETITIVE}")
    speed = text.splitlines()[-2].split()
    # all: (1.6 * 0.8 * 100) ** (1/3), (1.2 * 0.6 * 90) ** (1/3); competitive: sqrt(1.6 * 0.8), sqrt(1.2 * 0.6)
    assert [speed[i] for i in (1, 4, 7, 10)] == ["5.04", "1.13", "4.02", "0.85"]
    assert text.splitlines()[-1] == f"{COMPETITIVE}: without sum (their tasks name their timed baseline uncompetitive)"


def test_the_markdown_leaderboard_has_the_competitive_columns(fair_store):
    lines = leaderboard(_report(fair_store), markdown=True).splitlines()
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert header[6:] == ["geomean vs eager", f"vs eager, {COMPETITIVE}", "geomean vs compile",
                          f"vs compile, {COMPETITIVE}"]
    row = [cell.strip() for cell in lines[2].strip("|").split("|")]
    assert row[6].startswith("5.04") and row[7].startswith("1.13") and row[9].startswith("0.85")  # sqrt(1.2 * 0.6)


def test_categories_show_all_and_competitive_geomeans(fair_store):
    text = category_speed_text(_report(fair_store))
    assert _line(text, "Reduce").split()[-7:] == ["100.00", "/", "-", "|", "90.00", "/", "-"]
    assert _line(text, "Activation").split()[-7:] == ["1.13", "/", "1.13", "|", "0.85", "/", "0.85"]


def test_each_timed_task_shows_its_worst_workload(fair_store):
    text = task_speed_text(_report(fair_store))
    relu = _line(text, "relu")
    assert "0.80x bench/float16" in relu and "1.00x bench/float16" in relu
    assert _line(text, "sum").rstrip().endswith("uncompetitive")
    assert "matmul" not in text  # not correct, so not timed


def test_the_speed_sections_appear_only_for_timed_runs(fair_store, store_path):
    assert "speed per task, with its worst bench workload" in report_text(_report(fair_store))
    untimed = report_text(_report(store_path, ["run-c"]))
    assert "speed per task" not in untimed and "speed per category" not in untimed
