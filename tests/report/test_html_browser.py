"""The HTML report in a real browser: charts drawn, and `#task=NAME` opening that task's panel.

Needs Debian's chromium (`apt-get install -y chromium`, done by `make setup-browser` and CI); skipped without it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kbx.analysis.report import build_report
from kbx.report.html import write_html
from kbx.store.db import Store

from .cdp import Browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install -y chromium)")

RUNS = ["run-a-h100", "run-a-h200", "run-b", "run-c", "run-d"]


@pytest.fixture()
def page(store_path, tmp_path):
    with Store(store_path) as store:
        html = write_html(build_report(store, RUNS, resamples=50), tmp_path / "report.html")
    with Browser(CHROMIUM, tmp_path / "profile") as browser:
        browser.open(f"{html.as_uri()}#task=sum")
        yield browser


def test_the_charts_are_drawn_with_a_size_and_their_marks(page, tmp_path):
    sizes = page.evaluate("[...document.querySelectorAll('svg.chart')].map(s => "
                          "[s.getBoundingClientRect().width, s.getBoundingClientRect().height])")
    assert len(sizes) >= 8  # fast_p x2, heat-maps x2, speedups x2, SOL, trajectories x2
    assert all(w > 100 and h > 100 for w, h in sizes)
    assert page.evaluate("document.querySelectorAll('svg.chart polyline.series').length") >= 2 * len(RUNS)
    assert page.evaluate("document.querySelectorAll('svg.chart rect.cell').length") == 2 * 3 * len(RUNS)
    assert page.evaluate("document.querySelectorAll('svg.chart circle.dot').length") > 0
    page.evaluate("window.scrollTo(0, 0)")
    shot = page.screenshot(tmp_path / "report-top.png")
    print(f"screenshot: {shot}")
    assert shot.stat().st_size > 20_000


def test_the_task_in_the_address_opens_its_panel_and_only_it(page, tmp_path):
    opened = page.evaluate("[...document.querySelectorAll('details.task[open]')].map(d => d.dataset.task)")
    assert opened == ["sum"]
    assert page.evaluate("document.querySelector('details.task.focus').dataset.task") == "sum"
    assert "MISMATCH" in page.evaluate("document.querySelector('#task-sum').innerText")
    shot = page.screenshot(tmp_path / "report-sum.png")
    print(f"screenshot: {shot}")


def test_changing_the_hash_moves_the_focus_to_another_task(page):
    page.evaluate("location.hash = '#task=relu'")
    page.evaluate("new Promise(r => setTimeout(r, 100))")
    assert page.evaluate("document.querySelector('details.task.focus').dataset.task") == "relu"
    assert page.evaluate("document.querySelector('#task-relu').open") is True
    text = page.evaluate("document.querySelector('#task-relu').innerText")
    assert "refine:model-d" in text and "oneshot:model-b" in text


def test_the_filter_hides_tasks_that_do_not_match(page):
    page.evaluate("kbxFilter('Activation')")
    shown = page.evaluate("[...document.querySelectorAll('details.task')].filter(d => d.style.display !== 'none')"
                          ".map(d => d.dataset.task)")
    assert sorted(shown) == ["gelu", "relu"]


def test_a_click_on_a_task_in_the_overview_opens_its_panel(page):
    page.evaluate("document.querySelector('table.overview a[href=\"#task=gelu\"]').click()")
    page.evaluate("new Promise(r => setTimeout(r, 100))")
    assert page.evaluate("document.querySelector('details.task.focus').dataset.task") == "gelu"
    assert page.evaluate("document.querySelector('#task-gelu').open") is True


LONG_MODEL = "anthropic/claude-opus-4-20250514-extended-thinking-budget-32768"


@pytest.fixture()
def wide_page(store_path, tmp_path):
    """The report of every run plus one whose model name is long, at a laptop's width."""
    from tests.analysis.conftest import generation, row

    with Store(store_path) as store:
        store.begin_run("run-with-a-long-model-name", method="refine", model=LONG_MODEL, device="cuda",
                        git_sha="0123456789abcdef0123456789abcdef01234567", harness="0.1.0+t", config={},
                        environment={"torch": "2.11.0+cu130", "triton": "3.6.0", "cuda": "13.0"}, secret_seed=7)
        r = row("relu", "PASSED", code="long", eager=1.5, gpu="NVIDIA H200", sample=0, iteration=0)
        store.add_evaluation("run-with-a-long-model-name", r, "def relu(x):\n    return x\n", "key-long")
        store.add_generation("run-with-a-long-model-name", generation(r, LONG_MODEL))
        store.end_run("run-with-a-long-model-name", 1.0)
        html = write_html(build_report(store, [*RUNS, "run-with-a-long-model-name"], resamples=50),
                          tmp_path / "wide.html")
    with Browser(CHROMIUM, tmp_path / "profile", size=(1024, 900)) as browser:
        browser.open(html.as_uri())
        yield browser


CUT_LABELS = """[...document.querySelectorAll('svg.chart')].flatMap(svg => {
    const box = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text')].filter(t => {
        const r = t.getBoundingClientRect();
        return r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1
                               || r.bottom > box.bottom + 1);
    }).map(t => svg.getAttribute('aria-label') + ': ' + t.textContent);
})"""
"""Every text of a chart drawn outside its chart's box (cut off), as `title: text`."""


def test_nothing_spills_past_the_page_and_no_chart_label_is_cut(wide_page, tmp_path):
    assert wide_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert wide_page.evaluate(CUT_LABELS) == []
    wide_page.evaluate("document.querySelector('#categories').scrollIntoView()")
    print(f"screenshot: {wide_page.screenshot(tmp_path / 'report-wide.png')}")


EXAMPLES = sorted((Path(__file__).parents[2] / "docs" / "reports").glob("*.html"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.stem for e in EXAMPLES])
def test_the_shipped_example_report_fits_the_page(example, tmp_path):
    with Browser(CHROMIUM, tmp_path / "profile", size=(1024, 900)) as browser:
        browser.open(example.as_uri())
        assert browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert browser.evaluate(CUT_LABELS) == []
        assert browser.evaluate("document.querySelectorAll('svg.chart').length") >= 2


def test_the_speed_tables_of_a_timed_report_fit_the_page(fair_store, tmp_path):
    """The competitive-baseline columns, the categories' speed table and the per-task worst workloads scroll
    inside their boxes at a laptop's width."""
    with Store(fair_store) as store:
        html = write_html(build_report(store, ["run-f"], resamples=50), tmp_path / "fair.html")
    with Browser(CHROMIUM, tmp_path / "profile", size=(1024, 900)) as browser:
        browser.open(html.as_uri())
        assert browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert "0.80x bench/float16" in browser.evaluate("document.querySelector('#speedups').innerText")
        browser.evaluate("document.querySelector('#speedups').scrollIntoView()")
        print(f"screenshot: {browser.screenshot(tmp_path / 'report-speed.png')}")
