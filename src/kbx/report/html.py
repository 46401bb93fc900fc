"""The HTML report: one self-contained file (inline CSS, JS and SVG; nothing fetched), written from a `Report`."""

from __future__ import annotations

import time
from html import escape
from pathlib import Path

from kbx.analysis.report import Report
from kbx.report import svg
from kbx.report.drilldown import overview, task_panels
from kbx.report.tables import COMPETITIVE, RULE, kernelbench_differences, kernelbench_fast_p, kernelbench_rule

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 64px;color:#222}
h1{margin-top:24px} h2{border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:36px}
table{border-collapse:collapse;margin:8px 0} td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}
td:first-child,th:first-child{text-align:left} th{background:#f4f4f4}
.charts{display:flex;flex-wrap:wrap;gap:16px} svg.chart{background:#fff;border:1px solid #eee}
svg text{font-size:11px} svg text.title{font-size:13px;font-weight:600}
.axis{stroke:#333} .grid{stroke:#eee} .ref{stroke:#999;stroke-dasharray:4 3} svg text.empty{fill:#999}
.badge{display:inline-block;border-radius:3px;padding:0 5px;margin:0 2px;font-size:11px;color:#fff}
.badge.pass{background:#2a7d2a} .badge.fail{background:#b22} .badge.missing{background:#888}
details.task{border:1px solid #ddd;margin:4px 0;padding:4px 8px} details.task[open]{background:#fafafa}
details.task.focus{outline:2px solid #1f77b4} .cat{color:#666;font-size:12px}
.cand{border-top:1px solid #ddd;margin-top:8px;padding-top:4px} .facts th{text-align:left}
.wide{overflow-x:auto;max-width:100%} td code{word-break:break-all}
table.overview,table.mismatch,table.timings{display:block;overflow-x:auto;max-width:100%}
.message{border-left:3px solid #ccc;margin:6px 0;padding-left:8px} .message.user{border-color:#1f77b4}
.message.assistant,.message.reply{border-color:#2a7d2a} .role{font-size:11px;color:#666;text-transform:uppercase}
pre{background:#f6f6f6;padding:8px;overflow:auto;max-height:420px;text-align:left}
.note{color:#555} .absent{color:#888} .facts td{text-align:left} #filter{margin:8px 0;padding:4px;width:280px}
"""

_JS = """
function kbxOpenFromHash() {
  var m = location.hash.match(/^#task=(.+)$/);
  if (!m) return;
  var name = decodeURIComponent(m[1]);
  document.querySelectorAll('details.task.focus').forEach(function (d) { d.classList.remove('focus'); });
  var panel = document.querySelector('details.task[data-task="' + CSS.escape(name) + '"]');
  if (!panel) return;
  panel.open = true;
  panel.classList.add('focus');
  document.body.setAttribute('data-focus', name);
  panel.scrollIntoView();
}
function kbxFilter(text) {
  var q = text.toLowerCase();
  document.querySelectorAll('details.task').forEach(function (d) {
    var hit = d.dataset.task.toLowerCase().indexOf(q) >= 0 || d.dataset.category.toLowerCase().indexOf(q) >= 0;
    d.style.display = hit ? '' : 'none';
  });
}
window.addEventListener('hashchange', kbxOpenFromHash);
document.addEventListener('DOMContentLoaded', kbxOpenFromHash);
"""


def write_html(report: Report, path: Path) -> Path:
    """Write the report to `path` (one file) and return it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(report), encoding="utf-8")
    return path


def render_html(report: Report) -> str:
    """The whole page as a string."""
    sections = [
        ("Runs", _runs(report)), ("Model usage", _usage(report)), ("Headline", _headline(report)),
        ("pass@k", _pass_curve(report)), ("fast_p", _fast_p(report)),
        ("Categories", _categories(report)), ("Speedups", _speedups(report)), ("Speed of light", _sol(report)),
        ("GLM of correctness", _glm(report)), ("Refinement trajectories", _trajectories(report)),
        ("Across GPUs", _cross(report)), ("KernelBench", _kernelbench(report)), ("Tasks", _tasks(report)),
    ]
    body = "".join(f'<section id="{escape(title.lower().replace(" ", "-"))}"><h2>{escape(title)}</h2>{html}</section>'
                   for title, html in sections if html)
    names = ", ".join(escape(h.label) for h in report.headlines)
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>kbx report: {names}</title>'
            f"<style>{_CSS}</style><script>{_JS}</script></head><body><h1>kbx report</h1>"
            f'<p class="note">{len(report.tasks)} task(s) in the task set (a task a run did not evaluate counts as '
            f"failed); intervals are 95% percentile bootstraps over tasks ({report.resamples} resamples, seed "
            f"{report.seed}). Written {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.</p>{body}</body></html>")


def _table(header: list[str], rows: list[list[str]]) -> str:
    """A table inside a box that scrolls sideways when the table is wider than the page."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    return f'<div class="wide"><table><tr>{head}</tr>' + "".join(
        "<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows) + "</table></div>"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def _task_link(task: str) -> str:
    return f'<a href="#task={escape(task)}">{escape(task)}</a>'


def _runs(report: Report) -> str:
    rows = []
    for run in report.runs:
        i, env = run.info, run.info.environment
        versions = " ".join(f"{k} {env[k]}" for k in ("torch", "triton", "cuda") if env.get(k))
        rows.append([escape(run.label), f"<code>{escape(i.run_id)}</code>", escape(i.method), escape(i.model or "-"),
                     escape(i.device), escape(versions), escape(i.git_sha or "-"), escape(i.harness),
                     str(i.evaluations), "yes" if i.ended_at else "no"])
    return _table(["label", "run", "method", "model", "device", "versions", "git", "harness", "evaluations",
                   "finished"], rows)


def _usage(report: Report) -> str:
    """Model calls, tokens and cost per method, and the cost of each task solved."""
    if not report.usage:
        return ""
    solved = {label: sum(o.exe_ok for o in outcomes) for label, outcomes in report.outcomes.items()}
    rows = []
    for label, used in report.usage.items():
        cost = used["cost_usd"]
        per_task = "-" if cost is None or not solved.get(label) else f"${cost / solved[label]:.4f}"
        rows.append([escape(label), str(used["model_calls"]), f"{used['prompt_tokens']:,}",
                     f"{used['completion_tokens']:,}", "unpriced" if cost is None else f"${cost:.4f}", per_task])
    return (_table(["method", "model calls", "prompt tokens", "completion tokens", "cost", "cost per task solved"],
                   rows)
            + '<p class="note">Costs come from the price table in <code>KBX_PRICES</code> (US dollars per million '
              "tokens); a run with any unpriced call shows none.</p>")


def _pass_curve(report: Report) -> str:
    curves = {h.label: list(h.pass_curve) for h in report.headlines if h.pass_curve}
    if not curves:
        return ""
    return ('<div class="charts">' + svg.line_chart(curves, title="pass@k", x_label="k (samples drawn per task)",
                                                    y_label="mean pass@k", colors=_colors(report)) + "</div>"
            + '<p class="note">The unbiased estimator over each task\'s samples (a refinement chain is one sample); a '
              "task with fewer than k samples counts as 0 at that k.</p>")


def _headline(report: Report) -> str:
    ks = sorted({k for h in report.headlines for k in h.pass_at_k})
    rows = [[escape(h.label), escape(h.device), str(h.tasks), h.call_rate.format(percent=True),
             h.correctness.format(percent=True), h.fast_1_eager.format(percent=True),
             h.fast_1_compile.format(percent=True), h.geomean_eager.format(), h.geomean_eager_competitive.format(),
             h.geomean_compile.format(), h.geomean_compile_competitive.format(),
             h.slower_than_eager.format(percent=True), h.sol_fraction.format(),
             *[h.pass_at_k[k].format(percent=True) if k in h.pass_at_k else "-" for k in ks]]
            for h in report.headlines]
    return _table(["method", "device", "tasks", "call", "correct", "fast_1 eager", "fast_1 compile",
                   "geomean vs eager", f"vs eager, {COMPETITIVE}", "geomean vs compile", f"vs compile, {COMPETITIVE}",
                   "correct but slower than eager", "mean SOL fraction", *[f"pass@{k}" for k in ks]], rows) \
        + _uncompetitive_note(report)


def _uncompetitive_note(report: Report) -> str:
    """Which tasks the "competitive baselines" geometric means leave out, and why each task says so."""
    reasons = {o.task: o.uncompetitive for outcomes in report.outcomes.values() for o in outcomes if o.uncompetitive}
    if not reasons:
        return f'<p class="note">{COMPETITIVE}: every task (no task names its timed baseline uncompetitive).</p>'
    items = "".join(f"<li>{_task_link(task)}: {escape(why)}</li>" for task, why in sorted(reasons.items()))
    return (f'<p class="note">{COMPETITIVE}: the geometric means without the tasks that name their timed baseline '
            f"not a competitive implementation:</p><ul class=\"note\">{items}</ul>")


def _colors(report: Report) -> dict[str, str]:
    return {label: svg.PALETTE[i % len(svg.PALETTE)] for i, label in enumerate(report.outcomes)}


def _fast_p(report: Report) -> str:
    eager = {h.label: list(h.fast_p_eager) for h in report.headlines if h.fast_p_eager}
    compile_ = {h.label: list(h.fast_p_compile) for h in report.headlines if h.fast_p_compile}
    if not eager and not compile_:
        return '<p class="note">No run was timed (CPU runs never are): fast_p is unknown.</p>'
    colors = _colors(report)
    charts = [svg.line_chart(points, title=f"fast_p vs {name}", x_label=f"p (speedup threshold vs {name})",
                             y_label="share of tasks", colors=colors)
              for name, points in (("eager", eager), ("torch.compile", compile_)) if points]
    return '<div class="charts">' + "".join(charts) + "</div>"


def _categories(report: Report) -> str:
    labels = list(report.outcomes)
    cats = list(report.categories)
    correct = {(c, m): cell.correctness.value for c, cells in report.categories.items() for m, cell in cells.items()}
    fast = {(c, m): cell.fast_1.value for c, cells in report.categories.items() for m, cell in cells.items()}
    rows = [[escape(c), str(next(iter(cells.values())).tasks),
             *[f"{_pct(cells[m].call_rate)} / {cells[m].correctness.format(percent=True)} / "
               f"{cells[m].fast_1.format(percent=True)}" for m in labels]]
            for c, cells in report.categories.items()]
    unsolved = ", ".join(_task_link(t) for _, t in report.unsolved) or "none"
    speed = [[escape(c), str(next(iter(cells.values())).tasks),
              *[f"{_x(cells[m].geomean_eager)} / {_x(cells[m].geomean_eager_competitive)}" for m in labels],
              *[f"{_x(cells[m].geomean_compile)} / {_x(cells[m].geomean_compile_competitive)}" for m in labels]]
             for c, cells in report.categories.items()]
    timed = any(cell.geomean_eager is not None or cell.geomean_compile is not None
                for cells in report.categories.values() for cell in cells.values())
    return ('<div class="charts">' + svg.heatmap(cats, labels, correct, title="correctness by category and method")
            + svg.heatmap(cats, labels, fast, title="fast_1 (vs eager) by category and method") + "</div>"
            + _table(["category", "tasks", *[f"{m}: call / correct / fast_1" for m in labels]], rows)
            + (_table(["category", "tasks", *[f"{m}: geomean vs eager, all / {COMPETITIVE}" for m in labels],
                       *[f"{m}: geomean vs compile, all / {COMPETITIVE}" for m in labels]], speed) if timed else "")
            + f"<p>Tasks no method solves: {unsolved}</p>")


def _speedups(report: Report) -> str:
    charts = []
    for baseline in ("eager", "compile"):
        groups = {label: [(o.task, s) for o in outcomes if o.exe_ok and (s := o.speedup(baseline))]
                  for label, outcomes in report.outcomes.items()}
        if any(groups.values()):
            charts.append(svg.strip_chart(groups, title=f"speedup vs {baseline} of correct kernels",
                                          y_label=f"speedup vs {baseline} (log)", colors=_colors(report)))
    return ('<div class="charts">' + "".join(charts) + "</div>" + _per_task_speed(report)) if charts else \
        '<p class="note">No timed kernels (CPU runs are never timed).</p>'


def _per_task_speed(report: Report) -> str:
    """Per timed task and method: the speedup (geometric mean over bench workloads) and its worst workload."""
    rows = []
    for label, outcomes in report.outcomes.items():
        for o in outcomes:
            if o.exe_ok and (o.speedup_eager is not None or o.speedup_compile is not None):
                worst = [escape(w.format()) if (w := o.worst(b)) else "-" for b in ("eager", "compile")]
                note = f'<span title="{escape(o.uncompetitive)}">uncompetitive</span>' if o.uncompetitive else ""
                rows.append((o.category, o.task, label, [_task_link(o.task), escape(o.category), escape(label),
                                                         _x(o.speedup_eager), worst[0], _x(o.speedup_compile),
                                                         worst[1], note]))
    rows.sort(key=lambda r: r[:3])
    return ("<h3>Per task: the geometric mean over bench workloads and the worst workload</h3>"
            + _table(["task", "category", "method", "vs eager", "worst workload", "vs compile", "worst workload",
                      "baseline"], [r[3] for r in rows]))


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _sol(report: Report) -> str:
    groups = {label: [(o.task, o.sol_fraction) for o in outcomes if o.exe_ok and o.sol_fraction]
              for label, outcomes in report.outcomes.items()}
    if not any(groups.values()):
        return ""
    return svg.strip_chart(groups, title="SOL fraction of correct kernels", y_label="T_SOL / T_candidate",
                           log=False, reference=None, colors=_colors(report))


def _glm(report: Report) -> str:
    if not report.glm:
        return f'<p class="note">{escape(report.glm_note or "no observations")}</p>'
    rows = [[escape(f.name), str(f.observations), str(f.parameters), f"{f.deviance:.2f}", f"{f.null_deviance:.2f}",
             _pct(f.explained_deviance), f"{f.aic:.1f}", "-" if f.p_value is None else f"{f.p_value:.2g}",
             "yes" if f.separated else ""] for f in report.glm]
    note = f'<p class="note">{escape(report.glm_note)}</p>' if report.glm_note else ""
    return (_table(["correct ~", "observations", "parameters", "deviance", "null deviance",
                    "explained deviance", "AIC", "LR test p", "separation"], rows) + note
            + '<p class="note">Binomial GLM (logit), one observation per method and task; explained deviance = '
              "1 - deviance / null deviance; LR test: chi-square of the drop from the null deviance. Separation: some "
              "level was all correct or all wrong, so its coefficient "
              "diverges and the deviance shown is the limit.</p>")


def _trajectories(report: Report) -> str:
    if not report.trajectories:
        return ""
    correct = {label: [(s.iteration, s.correctness) for s in t.iterations] for label, t in report.trajectories.items()}
    solved = {label: [(s.iteration, s.solved_so_far) for s in t.iterations]
              for label, t in report.trajectories.items()}
    parts = ['<div class="charts">',
             svg.line_chart(correct, title="correctness per iteration", x_label="iteration", y_label="correct",
                            colors=_colors(report)),
             svg.line_chart(solved, title="chains solved so far", x_label="iteration", y_label="solved",
                            colors=_colors(report)), "</div>"]
    for label, t in report.trajectories.items():
        rows = [[str(s.iteration), str(s.candidates), _pct(s.call_rate), _pct(s.correctness),
                 "-" if s.geomean_eager is None else f"{s.geomean_eager:.2f}", _pct(s.solved_so_far)]
                for s in t.iterations]
        listing = lambda pairs: ", ".join(  # noqa: E731
            f"{_task_link(task)} ({'-' if s is None else f'{s:.2f}x'})" for task, s in pairs) or "none"
        regressions = ", ".join(f"{_task_link(task)} (correct at {a}, wrong at {b})"
                                for task, a, b in t.regressions) or "none"
        parts.append(f"<h3>{escape(label)}: {t.chains} chain(s)</h3>"
                     + _table(["iteration", "candidates", "call", "correct", "geomean vs eager", "solved so far"],
                              rows)
                     + f"<p>Rescued (wrong at iteration 0, correct later; best speedup): {listing(t.rescued)}</p>"
                     + f"<p>Persistently correct: {listing(t.persistent)}</p><p>Regressions: {regressions}</p>")
    return "".join(parts)


def _cross(report: Report) -> str:
    if not report.cross_hardware:
        return ""
    rows = [[_task_link(k.task), f"<code>{escape(k.candidate_hash[:12])}</code>",
             escape(", ".join(f"{gpu}: {s:.2f}x" for gpu, s in k.speedups)), f"{k.spread:.2f}"]
            for k in report.cross_hardware]
    return _table(["task", "candidate", "speedup vs eager per GPU", "max / min"], rows)


def _kernelbench(report: Report) -> str:
    """fast_p at KernelBench's thresholds, and KernelBench's rule beside kbx's verdict where recorded."""
    if not report.kernelbench:
        return ""

    def table(header: list[str], rows: list[list[str]]) -> str:
        return _table(header, [[escape(cell) for cell in row] for row in rows])

    parts = ['<p class="note">fast_p at KernelBench\'s thresholds: the share of tasks whose kernel kbx judged correct '
             "and that ran more than p times as fast as the baseline (-: not timed).</p>",
             table(*kernelbench_fast_p(report))]
    header, rows = kernelbench_rule(report)
    if not rows:
        parts.append('<p class="note">KernelBench\'s own rule was not recorded (<code>kbx run/eval --contract '
                     "kernelbench</code> records it).</p>")
        return "".join(parts)
    parts += [f"<h3>KernelBench's rule beside kbx's verdict</h3><p class=\"note\">{escape(RULE)}; counted in "
              "evaluations.</p>", table(header, rows)]
    header, rows = kernelbench_differences(report)
    parts.append("<h3>Where they differ</h3>" + (table(header, rows) if rows else
                 '<p class="note">The two verdicts agree on every evaluation the rule judged.</p>'))
    return "".join(parts)


def _tasks(report: Report) -> str:
    return ('<input id="filter" placeholder="filter tasks or categories" oninput="kbxFilter(this.value)">'
            '<p class="note">Open a task from the address: <code>#task=NAME</code>.</p>' + overview(report)
            + task_panels(report))
