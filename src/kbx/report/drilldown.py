"""The HTML report's per-task panels: every candidate of every run on the task, with what explains its verdict."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from kbx.analysis.data import Record
from kbx.analysis.report import Conversation, Report

TRANSCRIPT_KEYS = ("transcript", "messages", "prompt", "response")
"""Provenance fields shown as the conversation that produced a candidate, when present."""


def overview(report: Report) -> str:
    """Tasks x methods: each cell the best candidate's status and speedup vs eager; a task's name opens its panel."""
    labels = list(report.outcomes)
    head = "".join(f"<th>{escape(h)}</th>" for h in ("task", "category", *labels))
    by_task = {label: {o.task: o for o in outcomes} for label, outcomes in report.outcomes.items()}
    rows = []
    for task, category in report.tasks.items():
        cells = []
        for label in labels:
            o = by_task[label][task]
            speed = "" if o.speedup_eager is None else f" {o.speedup_eager:.2f}x"
            worst = f' title="worst bench workload: {escape(o.worst_eager.format())}"' if o.worst_eager else ""
            cells.append(f"<td{worst}>{_badge(o.status)}{speed}</td>")
        why = next((o.uncompetitive for group in by_task.values() if (o := group[task]).uncompetitive), "")
        note = f' <span class="note" title="{escape(why)}">(baseline uncompetitive)</span>' if why else ""
        rows.append(f'<tr><td><a href="#task={escape(task)}">{escape(task)}</a>{note}</td><td>{escape(category)}</td>'
                    f'{"".join(cells)}</tr>')
    table = f'<table class="overview"><tr>{head}</tr>{"".join(rows)}</table>'
    return _fold("overview: every task, every method", table)


def task_panels(report: Report) -> str:
    """One collapsed `<details class="task">` per task of the task set; `#task=NAME` opens one (see the page JS)."""
    by_task: dict[str, list[Record]] = {}
    for run in report.runs:
        for r in run.records:
            by_task.setdefault(r.task, []).append(r)
    labels = {run.info.run_id: run.label for run in report.runs}
    panels = []
    for task, category in report.tasks.items():
        badges = "".join(_badge(o.status, title=label) for label, outcomes in report.outcomes.items()
                         for o in outcomes if o.task == task)
        records = sorted(by_task.get(task, []), key=lambda r: (labels[r.run_id], r.sample, r.iteration or 0))
        body = "".join(_candidate(r, labels[r.run_id], report.code.get(r.candidate_hash),
                                  report.conversations.get((r.run_id, r.candidate))) for r in records)
        missing = [label for run_id, label in labels.items() if not any(r.run_id == run_id for r in records)]
        if missing:
            body += f'<p class="absent">not evaluated by: {escape(", ".join(missing))} (counted as failed)</p>'
        panels.append(f'<details class="task" id="task-{escape(task)}" data-task="{escape(task)}" '
                      f'data-category="{escape(category)}"><summary><b>{escape(task)}</b> '
                      f'<span class="cat">{escape(category)}</span> {badges}</summary>{body}</details>')
    return "\n".join(panels)


def _candidate(r: Record, label: str, code: str | None, conversation: Conversation | None = None) -> str:
    where = f"sample {r.sample}" + (f", iteration {r.iteration}" if r.iteration is not None else "")
    facts = [("status", _badge(r.status)), ("message", escape(str(r.row.get("message") or ""))),
             ("speedup vs eager", _num(r.speedup_eager)), ("speedup vs compile", _num(r.speedup_compile)),
             ("SOL fraction", _num(r.sol_fraction)), ("device", escape(r.gpu)),
             ("hash", f"<code>{escape(r.candidate_hash[:16])}</code>"),
             ("served from run", escape(str(r.row.get("cached_from") or "")))]
    rows = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in facts if v)
    parts = [f'<div class="cand" data-status="{escape(r.status)}"><h4>{escape(label)} — {escape(r.candidate)} '
             f'<small>({where})</small></h4><table class="facts">{rows}</table>',
             _mismatches(r.row.get("cases") or []), _timings(r.row.get("performance"))]
    if r.row.get("error"):
        parts.append(_fold("error", f"<pre>{escape(str(r.row['error']))}</pre>"))
    if r.row.get("worker_output"):
        parts.append(_fold("candidate output", f"<pre>{escape(str(r.row['worker_output']))}</pre>"))
    parts.append(_fold("code", f'<pre class="code">{escape(code)}</pre>' if code else "<p>no source stored</p>"))
    transcript = _conversation(conversation) if conversation else _transcript(r.row.get("provenance") or {})
    if transcript:
        parts.append(_fold("transcript", transcript))
    return "".join(parts) + "</div>"


def _mismatches(cases: Sequence[Mapping[str, Any]]) -> str:
    failed = [c for c in cases if c.get("status") != "PASSED"]
    if not failed:
        return ""
    rows = []
    for case in failed:
        for i, out in enumerate(case.get("outputs") or [{}]):
            first = ", ".join(f"{tuple(m['index'])}: got {m['got']:.6g}, expected {m['expected']:.6g}"
                              for m in out.get("first", [])[:5])
            rows.append("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in (
                case.get("workload"), case.get("dtype"), case.get("seed"), i, case.get("status"),
                f"{out.get('mismatches', '')}/{out.get('total', '')}", _num(out.get("max_abs_error")),
                _num(out.get("max_rel_error")), first or case.get("message", ""))) + "</tr>")
    head = "".join(f"<th>{h}</th>" for h in ("workload", "dtype", "seed", "output", "status", "differ", "max abs",
                                             "max rel", "first mismatches / message"))
    return f'<table class="mismatch"><tr>{head}</tr>{"".join(rows)}</table>'


def _timings(performance: Mapping[str, Any] | None) -> str:
    if not performance or not performance.get("workloads"):
        return ""
    rows = []
    for w in performance["workloads"]:
        med = w.get("median_ms") or {}
        cand = (w.get("summary") or {}).get("candidate") or {}
        ci = f"{_num(cand.get('ci_low'), 4)} – {_num(cand.get('ci_high'), 4)}" if cand.get("ci_low") else ""
        rows.append("<tr>" + "".join(f"<td>{v}</td>" for v in (
            escape(f"{w.get('workload')}/{w.get('dtype')}"), _num(med.get("candidate"), 4), ci, cand.get("n", ""),
            _num(med.get("eager"), 4), _num(med.get("compile"), 4), _num(w.get("sol_ms"), 4),
            _num(w.get("speedup_eager")), _num(w.get("speedup_compile")))) + "</tr>")
    head = "".join(f"<th>{h}</th>" for h in ("workload", "candidate ms", "95% CI", "samples", "eager ms",
                                             "compile ms", "SOL ms", "vs eager", "vs compile"))
    settings = performance.get("settings") or {}
    how = ", ".join(f"{k} {v}" for k, v in settings.items())
    note = f'<p class="note">medians of L2-flushed samples; {escape(how)}; lock wait ' \
           f'{_num(performance.get("lock_wait_s"))} s</p>' if settings else ""
    return _fold("timings", f'<table class="timings"><tr>{head}</tr>{"".join(rows)}</table>{note}')


def _conversation(conversation: Conversation) -> str:
    """Every message sent for the call (the task's prompt, then each earlier reply and the feedback on it), then
    the reply the candidate was taken from."""
    turns = [*((str(m.get("role", "?")), str(m.get("content", ""))) for m in conversation.messages),
             ("reply", conversation.reply)]
    return "".join(f'<div class="message {escape(role)}"><div class="role">{escape(role)}</div>'
                   f"<pre>{escape(text)}</pre></div>" for role, text in turns)


def _transcript(provenance: Mapping[str, Any]) -> str:
    parts = []
    for key in TRANSCRIPT_KEYS:
        value = provenance.get(key)
        if value:
            text = value if isinstance(value, str) else json.dumps(value, indent=1)
            parts.append(f"<h5>{key}</h5><pre>{escape(text)}</pre>")
    return "".join(parts)


def _fold(title: str, body: str) -> str:
    return f'<details class="fold"><summary>{escape(title)}</summary>{body}</details>'


def _badge(status: str, title: str = "") -> str:
    kind = "pass" if status == "PASSED" else "missing" if status == "MISSING" else "fail"
    hint = f' title="{escape(title)}"' if title else ""
    return f'<span class="badge {kind}"{hint}>{escape(status)}</span>'


def _num(value: Any, digits: int = 3) -> str:
    return "" if value is None else f"{float(value):.{digits}g}"
