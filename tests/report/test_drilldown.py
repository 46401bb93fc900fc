"""The HTML report's overview and per-task panels (`kbx.report.drilldown`), rendered from the analysis tests'
synthetic stores (`tests.analysis.conftest`: `store_path` and `fair_store` say what they hold)."""

from __future__ import annotations

from kbx.analysis.report import Report, build_report
from kbx.report.drilldown import overview, task_panels
from kbx.store.db import Store
from tests.analysis.conftest import H100, SLOW_LIBRARY, _run, row


def _report(path, runs) -> Report:
    with Store(path) as store:
        return build_report(store, list(runs), resamples=20)


def _panel(html: str, task: str) -> str:
    return html.split(f'id="task-{task}"')[1].split("</details>\n")[0]


def _candidate(panel: str, name: str) -> str:
    return panel.split(f"— {name} ")[1].split('<div class="cand"')[0]


def test_the_overview_has_a_row_per_task_and_a_cell_per_method(store_path):
    html = overview(_report(store_path, ["run-a-h100", "run-b"]))
    assert html.count("<tr>") == 1 + 4 and html.count("<th>") == 2 + 2  # task, category, two methods
    relu = html.split('<a href="#task=relu">relu</a>')[1].split("</tr>")[0]
    assert relu.count('<span class="badge pass">PASSED</span>') == 2 and " 2.00x" in relu and " 1.20x" in relu
    matmul = html.split('<a href="#task=matmul">matmul</a>')[1].split("</tr>")[0]
    assert '<span class="badge missing">MISSING</span>' in matmul and "RUNTIME_ERROR" in matmul


def test_the_overview_marks_a_task_whose_baseline_is_uncompetitive(fair_store):
    html = overview(_report(fair_store, ["run-f"]))
    sum_row = html.split('<a href="#task=sum">sum</a>')[1].split("</tr>")[0]
    assert f'title="{SLOW_LIBRARY}">(baseline uncompetitive)' in sum_row
    assert "(baseline uncompetitive)" not in html.split('<a href="#task=sum">')[0]
    assert 'title="worst bench workload: 0.80x bench/float16"' in html


def test_one_panel_a_task_with_each_runs_candidates_in_order(store_path):
    html = task_panels(_report(store_path, ["run-d"]))
    assert html.count('<details class="task"') == 4
    relu = _panel(html, "relu")
    assert 'data-category="Activation"' in html.split('id="task-relu"')[1].split(">")[0]
    assert [int(part.split(")")[0]) for part in relu.split("(sample 0, iteration ")[1:]] == [0, 1, 2]


def test_a_method_that_missed_the_task_is_named_in_its_panel(store_path):
    html = task_panels(_report(store_path, ["run-a-h100", "run-b"]))
    assert "not evaluated by: oneshot:model-a" in _panel(html, "matmul")
    assert "not evaluated by" not in _panel(html, "relu")


def test_a_mismatch_shows_how_many_elements_differ_and_the_first_ones(store_path):
    sum_panel = _panel(task_panels(_report(store_path, ["run-a-h100"])), "sum")
    assert '<table class="mismatch">' in sum_panel
    assert "(127,): got 1.5, expected 1" in sum_panel and "<td>3/129</td>" in sum_panel


def test_a_timed_candidate_shows_its_timings_and_a_failed_one_its_error(store_path):
    html = task_panels(_report(store_path, ["run-b"]))
    relu = _panel(html, "relu")
    assert '<table class="timings">' in relu and "<td>bench/float32</td><td>1</td>" in relu
    assert "<th>speedup vs eager</th><td>1.2</td>" in relu
    matmul = _panel(html, "matmul")
    assert "<pre>Traceback: boom</pre>" in matmul and '<table class="timings">' not in matmul


def test_a_transcript_shows_the_prompt_and_every_feedback_sent(store_path):
    relu = _panel(task_panels(_report(store_path, ["run-d"])), "relu")
    last = _candidate(relu, "relu-d2.py")
    assert "PROMPT: write a Triton kernel for relu" in last and "reply 2 for relu" in last
    assert "FEEDBACK 0: your kernel for relu" in last and "FEEDBACK 1: your kernel for relu" in last
    assert "FEEDBACK 0" not in _candidate(relu, "relu-d0.py")


def test_what_a_candidate_wrote_is_escaped(tmp_path):
    hostile = {**row("relu", "RUNTIME_ERROR", gpu=H100), "error": "<script>alert(1)</script>",
               "worker_output": "</pre><img src=x>"}
    path = tmp_path / "k.db"
    with Store(path) as store:
        _run(store, "run-h", "oneshot", "model-h", [hostile])
    relu = _panel(task_panels(_report(path, ["run-h"])), "relu")
    assert "<script>" not in relu and "&lt;script&gt;alert(1)&lt;/script&gt;" in relu
    assert "<img" not in relu and "&lt;/pre&gt;&lt;img src=x&gt;" in relu
