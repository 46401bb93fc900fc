"""The next user message of a refinement loop, written from the evaluation row of the last attempt.

A failed attempt is told its status, the one-line reason, the mismatch report of the first failing case, the
tail of its traceback and of what it printed. A passed one is told its timings (per bench workload: candidate
vs eager and torch.compile medians, speedups, fraction of the speed of light) and asked for a faster kernel.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kbx.generate.prompts import template

Row = Mapping[str, Any]
"""An evaluation row as stored (`Evaluation.to_json()`)."""

ERROR_LINES = 30
ERROR_CHARS = 3000
OUTPUT_LINES = 15


def trim(text: str, lines: int, chars: int = ERROR_CHARS) -> str:
    """The last `lines` lines of `text`, at most `chars` characters, saying what was cut."""
    kept = text.strip().splitlines()
    cut = len(kept) > lines
    body = "\n".join(kept[-lines:])
    if len(body) > chars:
        body, cut = body[-chars:], True
    return ("[... earlier lines cut]\n" if cut else "") + body


def mismatch_report(row: Row) -> str:
    """The first failing case's outputs: how many elements differ, the worst errors, the first differences."""
    failing = next((c for c in row.get("cases", ()) if c["status"] != "PASSED"), None)
    if failing is None:
        return ""
    lines = [f"Failing case: workload `{failing['workload']}` ({failing['role']}), dtype {failing['dtype']}"]
    for number, output in enumerate(failing.get("outputs", ())):
        if output["status"] == "PASSED":
            continue
        parts = [f"output {number}: {output['status']}"]
        if output.get("total"):
            parts.append(f"{output['mismatches']} of {output['total']} elements differ")
        if output.get("max_abs_error") is not None:
            parts.append(f"max abs error {output['max_abs_error']:.4g}, max rel error {output['max_rel_error']:.4g}")
        lines.append("; ".join(parts))
        lines += [f"  at {tuple(m['index'])}: got {m['got']!r}, expected {m['expected']!r}"
                  for m in output.get("first", ())[:5]]
    if failing.get("mutated_inputs"):
        lines.append(f"inputs modified in place: {', '.join(failing['mutated_inputs'])}")
    return "\n".join(lines)


def timing_report(row: Row) -> str:
    """Per bench workload: milliseconds of the candidate and the baselines, speedups and SOL fraction."""
    performance = row.get("performance")
    if not performance:
        return "No timings here (the CPU interpreter, or a run without timing): correctness only."
    lines = [f"Overall: {_x(row.get('speedup_eager'))} vs eager PyTorch, {_x(row.get('speedup_compile'))} vs "
             f"torch.compile, {_pct(row.get('sol_fraction'))} of the speed of light."]
    for w in performance.get("workloads", ()):
        ms = w.get("median_ms") or {}
        lines.append(f"- {w['workload']} {w['dtype']}: yours {_ms(ms.get('candidate'))}, eager {_ms(ms.get('eager'))},"
                     f" compile {_ms(ms.get('compile'))}, speed of light {_ms(w.get('sol_ms'))} "
                     f"({_pct(w.get('sol_fraction'))})")
    return "\n".join(lines)


def failure_details(row: Row, blocks: int) -> str:
    lines = [row["message"]] if row.get("message") else []
    report = mismatch_report(row)
    if report:
        lines += ["", report]
    if row.get("error"):
        lines += ["", "Traceback (last lines):", "```", trim(row["error"], ERROR_LINES), "```"]
    elif row.get("worker_output"):
        lines += ["", "What it printed (last lines):", "```", trim(row["worker_output"], OUTPUT_LINES), "```"]
    if blocks > 1:
        lines += ["", f"Your reply had {blocks} code blocks; only one was evaluated. Put the whole module in one."]
    return "\n".join(lines)


def feedback(row: Row, iteration: int, blocks: int, best: Row | None) -> str:
    """The user message after attempt `iteration` (0-based, whose row is `row`); `best` is the best correct row so
    far. Attempts are numbered from 1 for the model."""
    context = ""
    if best is not None and best is not row:
        context = f"\nYour best correct kernel so far is attempt {best['provenance']['iteration'] + 1}"
        context += (f" ({_x(best.get('speedup_eager'))} vs eager)." if best.get("speedup_eager") else ".")
    if row["status"] == "PASSED":
        return template("feedback_passed").substitute(iteration=iteration + 1, timings=timing_report(row),
                                                      context=context)
    return template("feedback_failed").substitute(iteration=iteration + 1, status=row["status"],
                                                  details=failure_details(row, blocks), context=context)


def _x(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f} ms"
