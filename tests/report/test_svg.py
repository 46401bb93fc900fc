"""The report's SVG charts size their margins from their labels, so nothing is drawn outside the chart."""

import re

from kbx.report import svg


def _width(chart: str) -> float:
    return float(re.search(r'<svg [^>]*width="(\d+)"', chart).group(1))


def test_a_heatmap_grows_with_its_labels_and_its_title():
    short = svg.heatmap(["Math"], ["a"], {("Math", "a"): 0.5}, title="t")
    long_row = svg.heatmap(["a-much-longer-category-name"], ["a"], {}, title="t")
    long_title = svg.heatmap(["Math"], ["a"], {}, title="correctness by category and method, at length")
    assert _width(long_row) > _width(short) and _width(long_title) > _width(short)
    assert _width(long_title) >= 16 + svg.TITLE_CHAR_W * len("correctness by category and method, at length")


def test_a_long_column_label_is_shortened_with_an_ellipsis_and_kept_whole_in_its_cell_titles():
    name = "refine:anthropic/claude-opus-4-20250514-extended-thinking-budget-32768"
    chart = svg.heatmap(["Math"], [name], {("Math", name): 1.0}, title="t")
    assert name[:47] + "…" in chart and f"Math / {name}: 100%" in chart
