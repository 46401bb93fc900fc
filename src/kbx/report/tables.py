"""The report's main tables as plain text for the terminal (`kbx report`, `kbx compare`)."""

from __future__ import annotations

from collections.abc import Sequence

from kbx.analysis.compare import TaskChange
from kbx.analysis.kernelbench import AGREEMENT, RULE_ONLY, THRESHOLDS
from kbx.analysis.report import Report
from kbx.kernelbench_rule import ATOL, RTOL, TRIALS

COMPETITIVE = "competitive baselines"
"""The label of a geometric mean over the tasks whose timed baseline is competitive (`kbx.analysis.workloads`)."""


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell: the first left-aligned, the rest right-aligned."""
    cells = [list(header), *[list(r) for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in cells]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.2g}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.0f}%"


def headline_table(report: Report) -> str:
    """Rates (with pass@k where runs were sampled), then speed, one row per method."""
    ks = sorted({k for h in report.headlines for k in h.pass_at_k})
    rates = [[h.label, h.device, str(h.tasks), h.call_rate.format(percent=True), h.correctness.format(percent=True),
              h.fast_1_eager.format(percent=True), h.fast_1_compile.format(percent=True),
              *[h.pass_at_k[k].format(percent=True) if k in h.pass_at_k else "-" for k in ks]]
             for h in report.headlines]
    speed = [[h.label, h.geomean_eager.format(), h.geomean_eager_competitive.format(), h.geomean_compile.format(),
              h.geomean_compile_competitive.format(), h.slower_than_eager.format(percent=True),
              h.sol_fraction.format()] for h in report.headlines]
    return (text_table(["method", "device", "tasks", "call", "correct", "fast_1 eager", "fast_1 compile",
                        *[f"pass@{k}" for k in ks]], rates)
            + "\n\n" + text_table(["method", "geomean vs eager", f"vs eager, {COMPETITIVE}", "geomean vs compile",
                                    f"vs compile, {COMPETITIVE}", "correct, slower than eager", "mean SOL fraction"],
                                   speed)
            + "\n" + uncompetitive_legend(report))


def leaderboard(report: Report, markdown: bool = False) -> str:
    """One row per method, best first (correctness, then geomean vs eager): the table to put in a paper. Markdown
    (a pipe table) or text."""
    ranked = sorted(report.headlines, key=lambda h: (-(h.correctness.value or 0.0), -(h.geomean_eager.value or 0.0)))
    header = ["#", "method", "device", "tasks", "correct", "fast_1 eager", "geomean vs eager",
              f"vs eager, {COMPETITIVE}", "geomean vs compile", f"vs compile, {COMPETITIVE}"]
    rows = [[str(rank), h.label, h.device, str(h.tasks), h.correctness.format(percent=True),
             h.fast_1_eager.format(percent=True), h.geomean_eager.format(), h.geomean_eager_competitive.format(),
             h.geomean_compile.format(), h.geomean_compile_competitive.format()]
            for rank, h in enumerate(ranked, 1)]
    return pipe_table(header, rows, left=3) if markdown else text_table(header, rows)


def pipe_table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A Markdown pipe table: the first `left` columns left-aligned, the rest right-aligned."""
    escape = [[cell.replace("|", "\\|") for cell in row] for row in rows]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i < left else "---:" for i in range(len(header)))
             + "|", *["| " + " | ".join(row) + " |" for row in escape]]
    return "\n".join(lines)


RULE = (f"{TRIALS} inputs at the problem's own size, torch.allclose with atol = {ATOL:g}, rtol = {RTOL:g}, no other "
        "check")
"""KernelBench's rule in words, for the reports' headings."""


def kernelbench_fast_p(report: Report) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of fast_p at KernelBench's thresholds, a row per method and baseline."""
    header = ["method", "baseline", *[f"fast_{p:g}" for p in THRESHOLDS]]
    rows = [[n.label, name, *[_pct(value) for _, value in curve]] for n in report.kernelbench
            for name, curve in (("eager", n.fast_p_eager), ("torch.compile", n.fast_p_compile))]
    return header, rows


def kernelbench_rule(report: Report) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of kbx's verdict beside KernelBench's rule, a row per method that recorded the rule."""
    header = ["method", "tasks", "correct (kbx)", "correct (KernelBench's rule)", *AGREEMENT]
    rows = [[n.label, str(n.tasks), _pct(n.correct), f"{_pct(n.rule_correct)} of {n.rule_tasks} judged",
             *[str(n.agreement[kind]) for kind in AGREEMENT]]
            for n in report.kernelbench if sum(n.agreement.values())]
    return header, rows


def kernelbench_differences(report: Report) -> tuple[list[str], list[list[str]]]:
    """(header, rows): every evaluation whose two verdicts differ, with the failing side's reason."""
    header = ["task", "method", "candidate", "kbx", "KernelBench's rule", "why the failing side failed"]
    rows = [[d.task, n.label, d.candidate, d.kbx_status, d.rule_verdict,
             (d.kbx_message if d.kind == RULE_ONLY else d.rule_message)[:160]]
            for n in report.kernelbench for d in n.disagreements]
    return header, rows


def kernelbench_text(report: Report, markdown: bool = False) -> str:
    """KernelBench's numbers: fast_p at its thresholds, and its rule's verdict beside kbx's where recorded."""
    def table(parts: tuple[list[str], list[list[str]]], left: int) -> str:
        return pipe_table(*parts, left=left) if markdown else text_table(*parts)

    parts = ["fast_p at KernelBench's thresholds: correct by kbx's verdict and more than p times as fast as the "
             "baseline (-: not timed)\n" + table(kernelbench_fast_p(report), 2)]
    ruled = kernelbench_rule(report)
    if not ruled[1]:
        parts.append("KernelBench's own rule was not recorded (kbx run/eval --contract kernelbench records it)")
        return "\n\n".join(parts)
    parts.append(f"KernelBench's rule ({RULE}) beside kbx's verdict, in evaluations\n" + table(ruled, 1))
    differing = kernelbench_differences(report)
    parts.append("where they differ\n" + table(differing, 6) if differing[1]
                 else "the two verdicts agree on every evaluation the rule judged")
    return "\n\n".join(parts)


def category_text(report: Report) -> str:
    """Correct / fast_1 per category, one column per method, numbered; the numbers' legend under the table."""
    labels = list(report.outcomes)
    rows = []
    for category, cells in report.categories.items():
        first = next(iter(cells.values()))
        rows.append([category, str(first.tasks), *[f"{_pct(cells[m].correctness.value)} / {_pct(cells[m].fast_1.value)}"
                                                   for m in labels]])
    table = text_table(["category", "tasks", *[f"[{i}]" for i in range(1, len(labels) + 1)]], rows)
    legend = "\n".join(f"[{i}] {label}" for i, label in enumerate(labels, 1))
    return f"{table}\ncells: correct / fast_1 (vs eager)\n{legend}"


def uncompetitive_legend(report: Report) -> str:
    """What the "competitive baselines" columns leave out: the tasks whose baseline is named uncompetitive."""
    left_out = sorted({task for h in report.headlines for task in h.uncompetitive})
    return (f"{COMPETITIVE}: without {', '.join(left_out)} (their tasks name their timed baseline uncompetitive)"
            if left_out else f"{COMPETITIVE}: every task (no task names its baseline uncompetitive)")


def category_speed_text(report: Report) -> str:
    """Geometric-mean speedups per category, with and without the tasks whose baseline is uncompetitive."""
    labels = list(report.outcomes)
    rows = [[category, str(next(iter(cells.values())).tasks),
             *[f"{_num(c.geomean_eager)} / {_num(c.geomean_eager_competitive)} | {_num(c.geomean_compile)} / "
               f"{_num(c.geomean_compile_competitive)}" for c in (cells[m] for m in labels)]]
            for category, cells in report.categories.items()]
    table = text_table(["category", "tasks", *[f"[{i}]" for i in range(1, len(labels) + 1)]], rows)
    legend = "\n".join(f"[{i}] {label}" for i, label in enumerate(labels, 1))
    return (f"{table}\ncells: geomean vs eager: all / {COMPETITIVE} | vs compile: all / {COMPETITIVE}\n"
            f"{uncompetitive_legend(report)}\n{legend}")


def task_speed_text(report: Report) -> str:
    """Per timed task and method: the speedup (geometric mean over bench workloads) and its worst workload."""
    rows = []
    for label, outcomes in report.outcomes.items():
        for o in outcomes:
            if o.exe_ok and (o.speedup_eager is not None or o.speedup_compile is not None):
                worst = [w.format() if (w := o.worst(b)) else "-" for b in ("eager", "compile")]
                rows.append([o.task, o.category, label, _num(o.speedup_eager), worst[0], _num(o.speedup_compile),
                             worst[1], "uncompetitive" if o.uncompetitive else ""])
    rows.sort(key=lambda r: (r[1], r[0], r[2]))
    return text_table(["task", "category", "method", "x eager", "worst workload", "x compile", "worst workload",
                       "baseline"], rows)


def glm_text(report: Report) -> str:
    """The three GLMs' deviances, explained deviance and LR p-value, or why there are none."""
    if not report.glm:
        return report.glm_note or "no observations"
    rows = [[f.name, str(f.observations), str(f.parameters), _num(f.deviance), _num(f.null_deviance),
             _pct(f.explained_deviance), _p(f.p_value), "yes" if f.separated else ""] for f in report.glm]
    table = text_table(["correct ~", "obs", "params", "deviance", "null deviance", "explained", "LR p",
                        "separation"], rows)
    return table + (f"\n{report.glm_note}" if report.glm_note else "")


def trajectory_text(report: Report) -> str:
    """Per refined method: a count line, then one row per iteration."""
    parts = []
    for label, t in report.trajectories.items():
        rows = [[str(s.iteration), str(s.candidates), _pct(s.call_rate), _pct(s.correctness), _num(s.geomean_eager),
                 _pct(s.solved_so_far)] for s in t.iterations]
        parts.append(f"{label}: {t.chains} chain(s), {len(t.rescued)} rescued, {len(t.persistent)} persistently "
                     f"correct, {len(t.regressions)} regression(s)\n"
                     + text_table(["iteration", "candidates", "call", "correct", "geomean eager", "solved so far"],
                                  rows))
    return "\n\n".join(parts)


def cross_text(report: Report) -> str:
    """One row per kernel timed on several GPUs: its speedup on each and the spread."""
    rows = [[k.task, k.candidate_hash[:12], ", ".join(f"{gpu} {s:.2f}" for gpu, s in k.speedups), f"{k.spread:.2f}"]
            for k in report.cross_hardware]
    return text_table(["task", "candidate", "speedup vs eager per GPU", "max/min"], rows)


def report_text(report: Report) -> str:
    """Headline, categories, GLM, unsolved tasks, and trajectories and cross-hardware spreads where there are any."""
    sections = [
        f"{len(report.tasks)} task(s); intervals: {report.resamples} bootstrap resamples of tasks, seed "
        f"{report.seed}, 95%\n\n" + headline_table(report),
        "per category\n" + category_text(report),
        *(["speed per category\n" + category_speed_text(report), "speed per task, with its worst bench workload\n"
           + task_speed_text(report)] if _timed(report) else []),
        "GLM of correctness (binomial, logit)\n" + glm_text(report),
        "unsolved by every method: " + (", ".join(t for _, t in report.unsolved) or "none"),
    ]
    if report.trajectories:
        sections.append("refinement trajectories\n" + trajectory_text(report))
    if report.cross_hardware:
        sections.append("same kernel, several GPUs\n" + cross_text(report))
    if report.kernelbench:
        sections.append("KernelBench's numbers\n" + kernelbench_text(report))
    return "\n\n".join(sections)


def _timed(report: Report) -> bool:
    return any(o.speedup_eager is not None or o.speedup_compile is not None
               for outcomes in report.outcomes.values() for o in outcomes)


def compare_text(changes: Sequence[TaskChange], label_a: str, label_b: str) -> str:
    """The tasks whose status or speedup changed from A to B, then a count line."""
    changed = [c for c in changes if c.changed]
    rows = [[c.task, c.category, c.status_a, c.status_b, c.flip, _num(c.speedup_a), _num(c.speedup_b),
             _num(c.speed_ratio)] for c in changed]
    counts = {flip: sum(1 for c in changes if c.flip == flip)
              for flip in ("fixed", "broken", "changed", "added", "dropped")}
    table = text_table(["task", "category", f"A: {label_a}", f"B: {label_b}", "flip", "speedup A", "speedup B",
                        "B/A"], rows) if rows else "no task changed"
    only = (f", {counts['added']} only in B, {counts['dropped']} only in A"
            if counts["added"] or counts["dropped"] else "")
    return (f"{table}\n\n{len(changes)} task(s): {counts['fixed']} fixed, {counts['broken']} broken, "
            f"{counts['changed']} other status change(s){only}, {len(changed)} changed in all")
