"""The HTML report shows the competitive-baseline geometric means with the reasons for what they leave out, the
categories' geomeans both ways, and per task the worst bench workload (`fair_store`, `tests.analysis.conftest`);
the overview and the task panels are in test_drilldown."""

from __future__ import annotations

from kbx.analysis.report import build_report
from kbx.report.html import render_html
from kbx.report.tables import COMPETITIVE
from kbx.store.db import Store
from tests.analysis.conftest import SLOW_LIBRARY


def _section(html: str, name: str) -> str:
    return html.split(f'id="{name}"')[1].split("</section>")[0]


def _html(path, runs=("run-f",)) -> str:
    with Store(path) as store:
        return render_html(build_report(store, list(runs), resamples=50))


def test_the_headline_has_both_geomeans_and_says_why_each_task_is_left_out(fair_store):
    headline = _section(_html(fair_store), "headline")
    assert f"<th>vs eager, {COMPETITIVE}</th>" in headline and f"<th>vs compile, {COMPETITIVE}</th>" in headline
    assert "<td>5.04 [" in headline and "<td>1.13 [" in headline
    assert f'<li><a href="#task=sum">sum</a>: {SLOW_LIBRARY}</li>' in headline


def test_categories_show_the_geomeans_all_and_competitive(fair_store):
    categories = _section(_html(fair_store), "categories")
    assert f"oneshot:model-f: geomean vs eager, all / {COMPETITIVE}" in categories
    assert "<td>100.00x / -</td>" in categories and "<td>1.13x / 1.13x</td>" in categories


def test_the_speedups_section_lists_each_tasks_worst_workload(fair_store):
    speedups = _section(_html(fair_store), "speedups")
    relu = speedups.split('<a href="#task=relu">relu</a>')[1].split("</tr>")[0]
    assert "<td>1.60x</td><td>0.80x bench/float16</td><td>1.20x</td><td>1.00x bench/float16</td>" in relu
    assert f'title="{SLOW_LIBRARY}">uncompetitive' in speedups.split('href="#task=sum"')[1].split("</tr>")[0]


def test_an_untimed_report_has_no_speed_tables(store_path):
    html = _html(store_path, ["run-c"])
    assert "geomean vs eager, all" not in html and "worst workload" not in html
    assert f"{COMPETITIVE}: every task" in _section(html, "headline")
