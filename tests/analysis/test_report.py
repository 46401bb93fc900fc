import re
import sys

import pytest

from kbx.analysis.report import build_report
from kbx.errors import KbxError
from kbx.report.html import render_html
from kbx.report.tables import report_text
from kbx.store.db import Store

RUNS = ["run-a-h100", "run-a-h200", "run-b", "run-c", "run-d"]


def _report(store_path, runs=RUNS, **kw):
    with Store(store_path) as store:
        return build_report(store, runs, resamples=50, **kw)


def test_the_report_gathers_every_part(store_path):
    report = _report(store_path)
    assert list(report.tasks) == ["gelu", "matmul", "relu", "sum"]
    assert [h.label for h in report.headlines][2:] == ["oneshot:model-b", "sample:model-c", "refine:model-d"]
    assert [f.name for f in report.glm] == ["category", "method", "category + method"]
    assert list(report.trajectories) == ["refine:model-d"]
    assert {k.task for k in report.cross_hardware} == {"relu", "gelu"}
    assert report.unsolved == ()
    assert report.code["h-relu-b"].startswith("# kernel for relu")


def test_pass_at_k_counts_a_refinement_chain_as_one_sample(store_path):
    report = _report(store_path)
    refine = report.outcomes["refine:model-d"]
    assert [(o.task, o.samples, o.correct) for o in refine] == [
        ("gelu", 1, 1), ("matmul", 1, 0), ("relu", 1, 1), ("sum", 1, 1)]
    assert report.headlines[-1].pass_at_k == {}  # one sample a task: pass@1 would repeat the correctness rate
    assert report.headlines[3].pass_at_k[3].value == pytest.approx(3 / 4)  # sample:model-c, pass@3


def test_fast_p_of_a_run_never_timed_is_unknown_not_zero(store_path):
    report = _report(store_path)
    cpu = report.headlines[3]
    assert cpu.label == "sample:model-c" and cpu.fast_1_eager.value is None and cpu.fast_p_eager == ()
    assert report.categories["Reduce"]["sample:model-c"].fast_1.value is None
    assert report.categories["Reduce"]["oneshot:model-b"].fast_1.value == 1.0


def test_a_task_no_method_solves_is_listed(store_path):
    report = _report(store_path, runs=["run-a-h100", "run-b"])
    assert report.unsolved == (("MatrixMultiply", "matmul"),)


def test_without_statsmodels_the_report_says_why_there_is_no_glm(store_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "statsmodels", None)
    monkeypatch.setitem(sys.modules, "statsmodels.api", None)
    report = _report(store_path)
    assert report.glm == () and "pip install 'kbx[analysis]'" in report.glm_note
    assert "pip install" in report_text(report) and "pip install" in render_html(report)


def test_a_report_needs_a_run(store_path):
    with Store(store_path) as store, pytest.raises(KbxError):
        build_report(store, [])


def test_the_html_is_one_file_that_fetches_nothing(store_path):
    html = render_html(_report(store_path))
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<script src" not in html and "<link" not in html
    assert html.count("<svg") >= 8 and 'id="task-relu"' in html


def test_a_run_with_no_evaluations_reports_zero_rates_without_intervals(store_path):
    with Store(store_path) as store:
        store.begin_run("empty", method="oneshot", model="m", device="cpu", git_sha=None, harness="x", config={},
                        environment={}, secret_seed=1)
        report = build_report(store, ["empty", "run-b"], resamples=20)
    empty = report.headlines[0]
    assert empty.tasks == 4 and empty.correctness.value == 0.0
    assert empty.correctness.low == 0.0 and empty.geomean_eager.value is None
    assert "not evaluated by: oneshot:m" in render_html(report)


def test_a_run_named_twice_is_a_user_error(store_path):
    with Store(store_path) as store, pytest.raises(KbxError, match="named twice: run-b"):
        build_report(store, ["run-b", "run-b"])


def test_the_model_usage_table_counts_tokens_and_prices_only_fully_priced_runs(store_path):
    with Store(store_path) as store:
        report = build_report(store, ["run-c", "run-d", "run-b"], resamples=20)
    # chains of 3, 3, 2 and 3 calls; the call at iteration i sends 100 * (i + 1) prompt tokens
    assert report.usage["refine:model-d"] == {"model_calls": 11, "prompt_tokens": 3 * 600 + 300,
                                              "completion_tokens": 550, "cost_usd": 0.011}
    assert report.usage["sample:model-c"]["cost_usd"] is None and "oneshot:model-b" not in report.usage
    html = render_html(report)
    usage = html.split('id="model-usage"')[1].split("</section>")[0]
    assert "$0.0110" in usage and "unpriced" in usage and "$0.0037" in usage  # 3 tasks solved by run-d's chains


def test_the_pass_at_k_curve_is_drawn_for_sampled_runs_only(store_path):
    with Store(store_path) as store:
        report = build_report(store, ["run-c", "run-b"], resamples=20)
    (sampled,) = [h for h in report.headlines if h.label == "sample:model-c"]
    assert [k for k, _ in sampled.pass_curve] == [1.0, 2.0, 3.0]
    assert sampled.pass_curve[-1][1] == 0.75  # relu, sum, matmul solved within 3 samples; gelu never
    section = render_html(report).split('id="pass@k"')[1].split("</section>")[0]
    assert section.count('class="series"') == 1


def test_every_table_of_the_report_scrolls_inside_the_page(store_path):
    with Store(store_path) as store:
        html = render_html(build_report(store, ["run-a-h100", "run-b", "run-c", "run-d"], resamples=20))
    tables = html.count("<table")
    boxed = html.count('<div class="wide"><table') + sum(html.count(f'<table class="{kind}"')
                                                          for kind in ("overview", "mismatch", "timings"))
    assert tables == boxed + html.count('<table class="facts"')
