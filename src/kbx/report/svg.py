"""Small inline-SVG charts drawn in Python, so the HTML report is one file that needs no network or library."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from html import escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
_W, _H = 520, 300
_LEFT, _RIGHT, _TOP, _BOTTOM = 56, 16, 30, 44


CHAR_W = 7.0
"""A generous width of one character of the charts' 11 px labels: margins are sized from it so no label is cut."""
TITLE_CHAR_W = 8.5
"""The same for the 13 px bold titles."""


def _open(width: float, height: float, title: str) -> list[str]:
    width = math.ceil(max(width, 16 + TITLE_CHAR_W * len(title)))
    return [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(title)}"><title>{escape(title)}'
            f'</title><text x="8" y="16" class="title">{escape(title)}</text>']


def _color(label: str, i: int, colors: Mapping[str, str] | None) -> str:
    return (colors or {}).get(label) or PALETTE[i % len(PALETTE)]


def _legend(labels: Sequence[str], x: float, y: float, colors: Mapping[str, str] | None) -> list[str]:
    out = []
    for i, label in enumerate(labels):
        color = _color(label, i, colors)
        out.append(f'<rect x="{x}" y="{y + 16 * i - 9}" width="10" height="10" fill="{color}"/>'
                   f'<text x="{x + 14}" y="{y + 16 * i}" class="legend">{escape(label)}</text>')
    return out


def _axes(x_label: str, y_label: str, y_ticks: Sequence[tuple[float, str]], y_of, width: int) -> list[str]:  # noqa: ANN001
    out = [f'<line x1="{_LEFT}" y1="{_H - _BOTTOM}" x2="{width - _RIGHT}" y2="{_H - _BOTTOM}" class="axis"/>',
           f'<line x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{_H - _BOTTOM}" class="axis"/>',
           f'<text x="{(_LEFT + width - _RIGHT) / 2}" y="{_H - 8}" text-anchor="middle">{escape(x_label)}</text>',
           f'<text x="14" y="{(_TOP + _H - _BOTTOM) / 2}" text-anchor="middle" '
           f'transform="rotate(-90 14 {(_TOP + _H - _BOTTOM) / 2})">{escape(y_label)}</text>']
    for value, text in y_ticks:
        y = y_of(value)
        out.append(f'<line x1="{_LEFT}" y1="{y:.1f}" x2="{width - _RIGHT}" y2="{y:.1f}" class="grid"/>'
                   f'<text x="{_LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{escape(text)}</text>')
    return out


def line_chart(series: Mapping[str, Sequence[tuple[float, float]]], *, title: str, x_label: str, y_label: str,
               y_max: float = 1.0, percent: bool = True, colors: Mapping[str, str] | None = None) -> str:
    """One polyline with dots per series; y from 0 to `y_max`, x over the union of the series' x.

    `colors` (label -> colour) keeps a method's colour the same across charts that show different subsets.
    """
    xs = sorted({x for points in series.values() for x, _ in points}) or [0.0, 1.0]
    lo, hi = xs[0], xs[-1] if xs[-1] > xs[0] else xs[0] + 1
    width = _W + 24 + 6.5 * max((len(label) for label in series), default=0)
    plot_right = _W - _RIGHT
    x_of = lambda x: _LEFT + (x - lo) / (hi - lo) * (plot_right - _LEFT)
    y_of = lambda y: _H - _BOTTOM - (y / y_max) * (_H - _BOTTOM - _TOP)
    ticks = [(y_max * f, f"{y_max * f * 100:.0f}%" if percent else f"{y_max * f:g}") for f in (0, .25, .5, .75, 1)]
    out = _open(width, _H, title) + _axes(x_label, y_label, ticks, y_of, _W)
    for x in xs:
        out.append(f'<text x="{x_of(x):.1f}" y="{_H - _BOTTOM + 14}" text-anchor="middle">{x:g}</text>')
    for i, (label, points) in enumerate(series.items()):
        color = _color(label, i, colors)
        coords = " ".join(f"{x_of(x):.1f},{y_of(y):.1f}" for x, y in points)
        out.append(f'<polyline points="{coords}" fill="none" stroke="{color}" stroke-width="2" class="series"/>')
        out.extend(f'<circle cx="{x_of(x):.1f}" cy="{y_of(y):.1f}" r="3" fill="{color}">'
                   f'<title>{escape(label)}: {x:g} -> {y:.3g}</title></circle>' for x, y in points)
    out.extend(_legend(list(series), _W + 4, _TOP + 10, colors))
    return "".join(out) + "</svg>"


_COLUMN_CHARS = 48
_SIN_30, _COS_30 = 0.5, 0.866


def heatmap(rows: Sequence[str], columns: Sequence[str], values: Mapping[tuple[str, str], float | None], *,
            title: str, link: str = "") -> str:
    """Cells shaded from white (0) to blue (1), each showing its value as a percentage. Margins grow with the
    labels: row labels right-aligned on the left, column labels slanted up and to the right above their cells."""
    shown = [col if len(col) <= _COLUMN_CHARS else col[: _COLUMN_CHARS - 1] + "…" for col in columns]
    longest = max((len(c) for c in shown), default=0)
    cell_w, cell_h = 110, 24
    left = max(150, 16 + CHAR_W * max((len(r) for r in rows), default=0))
    top = max(110, 40 + CHAR_W * longest * _SIN_30)
    overhang = CHAR_W * len(shown[-1]) * _COS_30 - cell_w / 2 if shown else 0
    width, height = left + cell_w * len(columns) + max(10, overhang + 10), top + cell_h * len(rows) + 10
    out = _open(width, height, title)
    for j, col in enumerate(shown):
        x = left + cell_w * j + cell_w / 2
        out.append(f'<text x="{x}" y="{top - 6}" transform="rotate(-30 {x} {top - 6})">{escape(col)}</text>')
    for i, row in enumerate(rows):
        y = top + cell_h * i
        out.append(f'<text x="{left - 6}" y="{y + 16}" text-anchor="end">{escape(row)}</text>')
        for j, col in enumerate(columns):
            value = values.get((row, col))
            shade = "#eee" if value is None else _blue(value)
            text = "-" if value is None else f"{value * 100:.0f}%"
            ink = "#fff" if value is not None and value > 0.6 else "#000"
            out.append(f'<rect x="{left + cell_w * j}" y="{y}" width="{cell_w - 2}" height="{cell_h - 2}" '
                       f'fill="{shade}" class="cell"><title>{escape(row)} / {escape(col)}: {text}</title></rect>'
                       f'<text x="{left + cell_w * j + cell_w / 2}" y="{y + 16}" text-anchor="middle" '
                       f'fill="{ink}">{text}</text>')
    return "".join(out) + "</svg>"


def strip_chart(groups: Mapping[str, Sequence[tuple[str, float]]], *, title: str, y_label: str, log: bool = True,
                reference: float | None = 1.0, colors: Mapping[str, str] | None = None) -> str:
    """One column of dots per group (named points: hover shows the name), with a bar at each group's median."""
    values = [v for points in groups.values() for _, v in points if v > 0] or [1.0]
    lo, hi = min(values + ([reference] if reference else [])), max(values + ([reference] if reference else []))
    f = (lambda v: math.log10(max(v, 1e-6))) if log else (lambda v: v)
    flo, fhi = f(lo) - 0.1, f(hi) + 0.1
    y_of = lambda v: _H - _BOTTOM - (f(v) - flo) / (fhi - flo) * (_H - _BOTTOM - _TOP)
    ticks = _log_ticks(lo, hi) if log else [(lo + (hi - lo) * k / 4, f"{lo + (hi - lo) * k / 4:.2g}") for k in range(5)]
    width = max(_W, _LEFT + 130 * len(groups) + _RIGHT)
    out = _open(width, _H, title) + _axes("", y_label, ticks, y_of, width)
    if reference is not None:
        out.append(f'<line x1="{_LEFT}" y1="{y_of(reference):.1f}" x2="{width - _RIGHT}" y2="{y_of(reference):.1f}" '
                   f'class="ref"/>')
    for i, (label, points) in enumerate(groups.items()):
        color, cx = _color(label, i, colors), _LEFT + 65 + 130 * i
        out.append(_wrapped(label, cx, _H - _BOTTOM + 14))
        if not points:
            out.append(f'<text x="{cx}" y="{(_TOP + _H - _BOTTOM) / 2}" text-anchor="middle" class="empty">'
                       "nothing timed</text>")
        for k, (name, v) in enumerate(points):
            jitter = ((k * 37) % 21 - 10) * 1.5
            out.append(f'<circle cx="{cx + jitter:.1f}" cy="{y_of(v):.1f}" r="3" fill="{color}" fill-opacity="0.7" '
                       f'class="dot"><title>{escape(name)}: {v:.3g}</title></circle>')
        if points:
            med = statistics.median(v for _, v in points)
            out.append(f'<line x1="{cx - 22}" y1="{y_of(med):.1f}" x2="{cx + 22}" y2="{y_of(med):.1f}" '
                       f'stroke="#000" stroke-width="2"><title>median {med:.3g}</title></line>')
    return "".join(out) + "</svg>"


def _wrapped(label: str, x: float, y: float, width: int = 20) -> str:
    """A label on up to two centred lines of `width` characters (the second cut with an ellipsis)."""
    first, rest = label[:width], label[width:]
    if " " in first and rest:  # break at the last space that fits
        cut = first.rfind(" ")
        first, rest = label[:cut], label[cut + 1:]
    second = f'<tspan x="{x}" dy="12">{escape(rest[:width - 1] + ("…" if len(rest) >= width else ""))}</tspan>' \
        if rest else ""
    return f'<text x="{x}" y="{y}" text-anchor="middle"><title>{escape(label)}</title>{escape(first)}{second}</text>'


def _log_ticks(lo: float, hi: float) -> list[tuple[float, str]]:
    candidates = [0.01, 0.03, 0.1, 0.3, 0.5, 1, 2, 3, 5, 10, 30, 100]
    return [(t, f"{t:g}") for t in candidates if lo / 1.3 <= t <= hi * 1.3] or [(lo, f"{lo:.2g}")]


def _blue(value: float) -> str:
    v = min(max(value, 0.0), 1.0)
    r, g, b = (int(255 + (t - 255) * v) for t in (8, 81, 156))
    return f"#{r:02x}{g:02x}{b:02x}"
