"""KernelBench's numbers in the terminal, Markdown and HTML reports (`kernelbench_store`, `tests.analysis.conftest`):
fast_p at KernelBench's thresholds, the rule's verdicts beside kbx's and where they differ."""

from __future__ import annotations

from kbx.analysis.report import build_report
from kbx.report.html import render_html
from kbx.report.tables import kernelbench_text, report_text
from kbx.store.db import Store


def _report(path, runs):
    with Store(path) as store:
        return build_report(store, list(runs), resamples=20)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def test_the_terminal_report_has_fast_p_at_kernelbenchs_thresholds(kernelbench_store):
    text = report_text(_report(kernelbench_store, ["run-kb"]))
    section = text.split("KernelBench's numbers\n")[1]
    lines = section.splitlines()
    assert lines[1].split() == ["method", "baseline", "fast_0", "fast_0.5", "fast_0.8", "fast_1", "fast_1.5", "fast_2"]
    assert lines[3].split() == ["oneshot:run-kb", "eager", "60%", "60%", "60%", "40%", "40%", "20%"]
    assert lines[4].split() == ["oneshot:run-kb", "torch.compile", "60%", "60%", "40%", "40%", "20%", "0%"]


def test_the_markdown_report_shows_both_verdicts_and_where_they_differ(kernelbench_store):
    text = kernelbench_text(_report(kernelbench_store, ["run-kb"]), markdown=True)
    rows = [_cells(line) for line in text.splitlines() if line.startswith("| oneshot:run-kb |")]
    assert rows[2] == ["oneshot:run-kb", "5", "60%", "50% of 4 judged", "1", "1", "1", "1", "1"]
    differing = [_cells(line) for line in text.split("where they differ\n")[1].splitlines()[2:]]
    assert sorted((row[0], row[3], row[4], row[5]) for row in differing) == [
        ("level1/2_B", "PASSED", "FAILED", "failed by the rule in level1/2_B"),
        ("level2/1_C", "MISMATCH", "PASSED", "mismatch in relu"),
    ]


def test_a_run_without_the_rule_says_how_to_record_it(kernelbench_store):
    text = kernelbench_text(_report(kernelbench_store, ["run-kb-plain"]))
    assert "KernelBench's own rule was not recorded (kbx run/eval --contract kernelbench records it)" in text
    assert text.splitlines()[3].split() == ["oneshot:run-kb-plain", "eager", "-", "-", "-", "-", "-", "-"]


def test_a_report_of_kbxs_own_suite_has_no_kernelbench_section(kernelbench_store):
    assert "KernelBench's numbers" not in report_text(_report(kernelbench_store, ["run-native"]))
    assert 'id="kernelbench"' not in render_html(_report(kernelbench_store, ["run-native"]))


def test_the_html_report_has_the_kernelbench_section(kernelbench_store):
    html = render_html(_report(kernelbench_store, ["run-kb"]))
    section = html.split('id="kernelbench"')[1].split("</section>")[0]
    assert "<th>fast_1.5</th>" in section and "<td>50% of 4 judged</td>" in section
    assert "<td>level2/1_C</td>" in section and "<td>level1/2_B</td>" in section
    assert "level1/1_A" not in section  # both verdicts pass it: not a difference
