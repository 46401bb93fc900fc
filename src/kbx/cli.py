"""The `kbx` command line: thin wrappers over library functions a Python user can call too."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from kbx.errors import KbxError


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help()
        return 2
    try:
        return args.handler(args)
    except KbxError as exc:
        print(f"kbx: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kbx: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        sys.stderr.close()
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kbx", description="Benchmark and evaluate LLM-written GPU kernels.")
    commands = parser.add_subparsers(title="commands")

    tasks = commands.add_parser("tasks", help="list, show and validate tasks").add_subparsers(title="tasks")
    listing = tasks.add_parser("list", help="list the suite's tasks")
    listing.add_argument("--category", help="only this category")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    _suite_option(listing)
    listing.set_defaults(handler=_tasks_list)
    show = tasks.add_parser("show", help="describe one task")
    show.add_argument("name")
    _suite_option(show)
    show.set_defaults(handler=_tasks_show)
    validate = tasks.add_parser("validate", help="check every task loads and its inputs and reference run")
    _suite_option(validate)
    validate.set_defaults(handler=_tasks_validate)

    evaluate = commands.add_parser("eval", help="evaluate candidate kernels")
    evaluate.add_argument("sources", nargs="+", help=".py files, directories of them, or JSONL of replies")
    _run_options(evaluate)
    evaluate.set_defaults(handler=_eval)

    run = commands.add_parser("run", help="run a method over the suite (default: the reference solutions)")
    run.add_argument("--method", default="reference", help="candidate source (default: reference)")
    _run_options(run)
    run.set_defaults(handler=_run)
    return parser


def _suite_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", type=Path, help="suite folder (default: the suite shipped with kbx)")


def _run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, help="output folder (default: kbx-out/<time>)")
    parser.add_argument("--tasks", nargs="+", default=[], help="only these tasks")
    parser.add_argument("--category", help="only this category")
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    parser.add_argument("--timeout", type=float, help="wall-clock seconds per candidate")
    parser.add_argument("--jobs", type=int, help="candidate workers at once")
    _suite_option(parser)


def _tasks_list(args: argparse.Namespace) -> int:
    from kbx.tasks.registry import load_suite, select

    tasks = select(load_suite(args.suite), category=args.category)
    if args.json:
        rows = [
            {
                "name": t.name,
                "category": t.category,
                "level": t.level,
                "dtypes": list(t.dtypes),
                "workloads": [{"name": w.name, "role": w.role, "params": dict(w.params)} for w in t.workloads],
                "signature": f"{t.name}{t.signature.render()}",
                "contract": t.contract.kind,
                "version": t.version,
            }
            for t in tasks
        ]
        print(json.dumps(rows, indent=2))
        return 0
    for t in tasks:
        print(f"{t.category:15s} L{t.level}  {t.name + t.signature.render():70s} {','.join(t.dtypes)}")
    print(f"{len(tasks)} task(s) in {len({t.category for t in tasks})} categories")
    return 0


def _tasks_show(args: argparse.Namespace) -> int:
    from kbx.tasks.describe import describe
    from kbx.tasks.registry import load_suite, select

    print(describe(select(load_suite(args.suite), [args.name])[0]))
    return 0


def _tasks_validate(args: argparse.Namespace) -> int:
    from kbx.tasks.validate import validate

    problems, count = validate(args.suite, progress=sys.stdout)
    for problem in problems:
        print(f"kbx: error: {problem}", file=sys.stderr)
    print(f"{count - len(problems)}/{count} task(s) valid")
    return 1 if problems else 0


def _options(args: argparse.Namespace):  # noqa: ANN202 - RunOptions, imported lazily
    from kbx.runner import RunOptions

    out = args.out or Path("kbx-out") / time.strftime("%Y%m%d-%H%M%S")
    return RunOptions(
        out_dir=out,
        device=args.device,
        tasks=tuple(args.tasks),
        category=args.category,
        timeout_s=args.timeout,
        jobs=args.jobs,
        suite=args.suite,
    )


def _eval(args: argparse.Namespace) -> int:
    from kbx.runner import evaluate_sources

    return _report(evaluate_sources(args.sources, _options(args)))


def _run(args: argparse.Namespace) -> int:
    from kbx.runner import run_method

    return _report(run_method(args.method, _options(args)))


def _report(result) -> int:  # noqa: ANN001 - RunResult, imported lazily
    from kbx.summary import summary_table

    print(summary_table(result.evaluations))
    print(f"\n{len(result.evaluations)} evaluation(s) on {result.device} in {result.elapsed_s:.1f}s; "
          f"results: {result.out_dir / 'results.jsonl'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
