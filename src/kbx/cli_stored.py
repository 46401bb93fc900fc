"""The commands that read the store: `runs list`, `runs show`, `export`, `report`, `compare`, their parsers
(`add_commands`, called by `kbx.cli`) and handlers. Each handler takes the parsed arguments and returns the exit
status; heavy modules are imported lazily."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from kbx.errors import KbxError


def runs_list(args: argparse.Namespace) -> int:
    from kbx.store.db import Store

    with Store(args.store) as store:
        runs = store.runs()
    if args.json:
        print(json.dumps([r.to_json() for r in runs], indent=2))
        return 0
    if runs:
        print(f"{'run':12s}  {'started':16s}  {'method':10s} {'model':20s} {'device':6s}{'rows':>5s}        state")
    for r in runs:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at))
        state = "finished" if r.ended_at is not None else "unfinished"
        model = r.model or "-"
        print(f"{r.run_id}  {when}  {r.method:10s} {model:20s} {r.device:5s} {r.evaluations:5d} evals  {state}")
    print(f"{len(runs)} run(s) in {store.path}")
    return 0


def runs_show(args: argparse.Namespace) -> int:
    from kbx.store.db import Store
    from kbx.summary import summary_table

    with Store(args.store) as store:
        info = store.run(args.run)
        rows = store.rows(info.run_id)
        usage = store.usage(info.run_id)
    data = info.to_json()
    for key in ("run_id", "method", "model", "device", "git_sha", "harness", "finished", "secret_seed", "evaluations"):
        print(f"{key:12s} {data[key]}")
    env = info.environment
    print(f"{'environment':12s} {env.get('gpu') or env.get('triton_mode', '')} | torch {env.get('torch')} | "
          f"triton {env.get('triton')}")
    if usage["model_calls"]:
        t = usage
        cost = "unpriced" if t["cost_usd"] is None else f"${t['cost_usd']:.4f}"
        print(f"{'model calls':12s} {t['model_calls']}, {t['prompt_tokens']} prompt + {t['completion_tokens']} "
              f"completion tokens, {cost}")
    print(f"{'cached':12s} {sum(1 for r in rows if r.get('cached_from'))} served from earlier runs\n")
    print(summary_table(rows))
    return 0


def export(args: argparse.Namespace) -> int:
    from kbx.store.db import Store
    from kbx.store.export import export_run

    with Store(args.store) as store:
        info = store.run(args.run)
        out = args.out or Path(f"{info.run_id}.{args.format}")
        count = export_run(store, info.run_id, out, args.format)
    print(f"{count} evaluation(s) of run {info.run_id} -> {out}")
    return 0


def report_runs(args: argparse.Namespace) -> int:
    from kbx.analysis.report import build_report
    from kbx.report.tables import report_text
    from kbx.store.db import Store

    if args.resamples < 1:
        raise KbxError("--resamples must be >= 1")
    if bool(args.runs) == args.all:
        raise KbxError("name the runs to report on, or give --all (not both)")
    with Store(args.store) as store:
        runs = args.runs or [r.run_id for r in store.runs()]
        if not runs:
            raise KbxError(f"no run in {store.path} yet")
        analysis = build_report(store, runs, tasks=args.tasks, seed=args.seed, resamples=args.resamples)
    if args.all or args.markdown:
        from kbx.report.tables import leaderboard

        print(leaderboard(analysis, markdown=args.markdown))
        if args.markdown:
            if analysis.kernelbench:
                from kbx.report.tables import kernelbench_text

                print(f"\n{kernelbench_text(analysis, markdown=True)}")
            return 0
        print()
    print(report_text(analysis))
    if args.html:
        from kbx.report.html import write_html

        print(f"\nHTML report: {write_html(analysis, args.html)}")
    return 0


def compare_runs(args: argparse.Namespace) -> int:
    from kbx.analysis.compare import compare
    from kbx.analysis.data import load_runs
    from kbx.report.tables import compare_text
    from kbx.store.db import Store

    with Store(args.store) as store:
        a, b = load_runs(store, [args.run_a, args.run_b])
    print(compare_text(compare(a, b), a.label, b.label))
    return 0

def add_commands(commands: Any) -> None:
    """The parsers of this group's commands, on `kbx`'s subcommands."""
    runs = commands.add_parser("runs", help="list and show stored runs").add_subparsers(title="runs")
    listing = runs.add_parser("list", help="the store's runs, oldest first")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    store_option(listing)
    listing.set_defaults(handler=runs_list)
    showing = runs.add_parser("show", help="one run: configuration, environment and its summary")
    showing.add_argument("run", help="run id, a unique prefix of one, or latest")
    store_option(showing)
    showing.set_defaults(handler=runs_show)

    exporting = commands.add_parser("export", help="write a stored run's evaluations to a file")
    exporting.add_argument("run", help="run id, a unique prefix of one, or latest")
    exporting.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl")
    exporting.add_argument("--out", type=Path, help="output file (default: <run>.<format>)")
    store_option(exporting)
    exporting.set_defaults(handler=export)

    reporting = commands.add_parser("report", help="analyse stored runs: tables in the terminal, optionally HTML")
    reporting.add_argument("runs", nargs="*", metavar="RUN",
                           help="run ids or unique prefixes, one per method; A+B joins runs of one method (the "
                                "later run wins a task both evaluated)")
    reporting.add_argument("--all", action="store_true",
                           help="every run in the store, as one leaderboard (a method per run, best first)")
    reporting.add_argument("--markdown", action="store_true",
                           help="print the leaderboard (and, for KernelBench runs, KernelBench's numbers) as Markdown")
    reporting.add_argument("--html", type=Path, metavar="FILE", help="also write the self-contained HTML report here")
    reporting.add_argument("--tasks", nargs="+", default=[],
                           help="the task set (default: every task of the runs); tasks a run lacks count as failed")
    reporting.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    reporting.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000)")
    store_option(reporting)
    reporting.set_defaults(handler=report_runs)

    comparing = commands.add_parser("compare", help="what changed from one stored run to another, task by task")
    comparing.add_argument("run_a", metavar="RUN_A")
    comparing.add_argument("run_b", metavar="RUN_B")
    store_option(comparing)
    comparing.set_defaults(handler=compare_runs)


def store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--store", type=Path, help="SQLite store (default: $KBX_STORE or ~/.local/share/kbx/kbx.db)")
