"""The `kbx` command line: thin wrappers over library functions a Python user can call too."""

from __future__ import annotations

import argparse
import faulthandler
import io
import json
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from kbx import cli_stored as stored
from kbx.errors import KbxError
from kbx.kernelbench_rule import CONTRACTS


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help()
        return 2
    _stacks_on_request()
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


def _stacks_on_request() -> None:
    """`kill -USR1 PID` prints every thread's stack on stderr, to see where a long run waits; not where stderr has
    no file descriptor (captured by a caller)."""
    if not hasattr(signal, "SIGUSR1"):
        return
    try:
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except (io.UnsupportedOperation, AttributeError, ValueError):
        pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kbx", description="Benchmark and evaluate LLM-written GPU kernels.")
    parser.add_argument("--version", action="version", version=f"kbx {_version()}")
    commands = parser.add_subparsers(title="commands")
    _task_commands(commands)
    _run_commands(commands)
    stored.add_commands(commands)
    return parser


def _task_commands(commands: Any) -> None:
    tasks = commands.add_parser("tasks", help="list, show and validate tasks").add_subparsers(title="tasks")
    listing = tasks.add_parser("list", help="list the suite's tasks")
    listing.add_argument("--category", help="only this category")
    listing.add_argument("--json", action="store_true", help="print a JSON array")
    _suite_option(listing, level=True)
    listing.set_defaults(handler=_tasks_list)
    show = tasks.add_parser("show", help="describe one task")
    show.add_argument("name")
    _suite_option(show, level=True)
    show.set_defaults(handler=_tasks_show)
    validate = tasks.add_parser("validate", help="check every task loads and its inputs and reference run")
    _suite_option(validate, level=True)
    validate.set_defaults(handler=_tasks_validate)


def _run_commands(commands: Any) -> None:
    from kbx.methods import registry

    evaluate = commands.add_parser("eval", help="evaluate candidate kernels")
    evaluate.add_argument("sources", nargs="+", help=".py files, directories of them, or JSONL of replies")
    _run_options(evaluate)
    evaluate.set_defaults(handler=_eval)

    run = commands.add_parser("run", help="run a method over the suite (default: the reference solutions)")
    run.add_argument("--method", default="reference", help=registry.described())
    run.add_argument("--resume", metavar="RUN", help="continue a stored run (id or unique prefix) where it stopped")
    _generation_options(run)
    _run_options(run)
    run.set_defaults(handler=_run)

    prompt = commands.add_parser("prompt", help="print the prompt a generating method sends for one task")
    prompt.add_argument("task")
    prompt.add_argument("--gpu", help="target GPU named in the prompt, e.g. H100 (default: the CPU interpreter)")
    prompt.add_argument("--backend", choices=("triton", "cuda"), default="triton",
                        help="ask for Triton kernels, or CUDA kernels built with load_inline (default: triton)")
    _suite_option(prompt, level=True)
    prompt.set_defaults(handler=_prompt)


def _suite_option(parser: argparse.ArgumentParser, level: bool = False) -> None:
    parser.add_argument("--suite", help="a suite folder, or kernelbench:PATH for the problems of a KernelBench "
                                        "checkout (or its problem folder); default: the suite shipped with kbx")
    if level:
        parser.add_argument("--level", type=int, choices=(1, 2, 3),
                            help="only the tasks of this level (1 single operators, 2 fusions, 3 architectures)")


def _generation_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("generation (--method oneshot, sample, refine; see docs/generation.md)")
    group.add_argument("--model", help="KIND:MODEL, e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5, "
                                       "replay:FILE.jsonl, replay:run:RUN")
    group.add_argument("--samples", type=int, default=1, help="samples per task (default 1)")
    group.add_argument("--iterations", type=int, help="refine: model calls per chain at most (default 4)")
    group.add_argument("--temperature", type=float, help="sampling temperature (default: the provider's)")
    group.add_argument("--max-repairs", type=int, default=3,
                       help="refine: consecutive failed attempts before a chain gives up (default 3)")
    group.add_argument("--concurrency", type=int, default=8, help="model requests in flight at once (default 8)")
    group.add_argument("--max-tokens", type=int, default=8192, help="completion tokens per reply (default 8192)")
    group.add_argument("--request-timeout", type=float, default=600.0,
                       help="seconds per model request (default 600)")
    group.add_argument("--backend", choices=("triton", "cuda"), default="triton",
                       help="ask for Triton kernels, or CUDA kernels built with load_inline (default: triton)")


def _generation(args: argparse.Namespace):  # noqa: ANN202 - GenerationSettings, imported lazily
    from kbx.generate.settings import GenerationSettings

    if getattr(args, "model", None) is None:
        return None
    return GenerationSettings(  # the method fills in its defaults and refuses what it does not take (kbx.methods)
        model=args.model, samples=args.samples, iterations=args.iterations, temperature=args.temperature,
        max_repairs=args.max_repairs, concurrency=args.concurrency, max_tokens=args.max_tokens,
        request_timeout_s=args.request_timeout, backend=args.backend,
    )


def _version() -> str:
    import kbx

    return kbx.__version__


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, help="output folder (default: kbx-out/<time>)")
    parser.add_argument("--tasks", nargs="+", default=[], help="only these tasks")
    parser.add_argument("--category", help="only this category")
    parser.add_argument("--shard", metavar="K/N", type=_shard,
                        help="only every N-th selected task from the K-th (0-based): one of N runs that split the work")
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto",
                        help="cuda: compiled Triton on this machine's GPUs, timed; cpu: the Triton interpreter, "
                             "correctness only; auto (default): cuda where torch sees a GPU")
    parser.add_argument("--timeout", type=float,
                        help="wall-clock seconds per candidate (default: 300 on a GPU, 600 on the CPU)")
    parser.add_argument("--compile-timeout", type=float,
                        help="wall-clock seconds to build a CUDA candidate's extensions, apart from --timeout "
                             "(default: 600)")
    parser.add_argument("--unconfined", action="store_true",
                        help="run candidates without OS confinement (namespaces, UID, seccomp); every row says so")
    parser.add_argument("--jobs", type=int,
                        help="candidate workers at once per device (default: every core on the CPU, 1 per GPU)")
    parser.add_argument("--gpus", type=_positive, help="GPUs to spread the work over (default: every visible GPU)")
    parser.add_argument("--executor", choices=["local", "ray"], default="local",
                        help="local: this host's GPUs; ray: one actor per GPU of a Ray cluster")
    parser.add_argument("--ray-address", help="Ray cluster address (default: start a local one)")
    parser.add_argument("--no-cache", action="store_true", help="evaluate even work the store already has")
    parser.add_argument("--no-timing", action="store_true", help="correctness only, even on a GPU")
    parser.add_argument("--contract", choices=CONTRACTS,
                        help="also judge each KernelBench problem's candidate by KernelBench's own rule (5 inputs at "
                             "the problem's size, allclose atol=rtol=1e-2) and store that verdict beside kbx's")
    parser.add_argument("--timing-rounds", type=int, help="GPU timing: rounds of eager, compile, candidate (default 3)")
    parser.add_argument("--timing-budget", type=float,
                        help="GPU timing: sampling seconds per side per round (default 1.0)")
    parser.add_argument("--timing-warmup", type=float,
                        help="GPU timing: warm-up seconds after the first call, per side per round (default 0.1)")
    parser.add_argument("--fresh-baselines", action="store_true",
                        help="GPU timing: time eager and torch.compile beside every candidate (default: once per task "
                             "and GPU, reused while a drift canary timed beside each candidate stays steady)")
    stored.store_option(parser)
    _suite_option(parser, level=True)


def _tasks_list(args: argparse.Namespace) -> int:
    from kbx.tasks.registry import open_suite, select

    suite = open_suite(args.suite, args.level)
    for line in suite.unloaded:  # KernelBench problems kbx cannot run: one line each, the listing goes on
        print(f"kbx: not loaded: {line}", file=sys.stderr)
    tasks = select(suite.tasks, category=args.category)
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
    print(f"{'category':15s} {'level':5s} {'task and signature':70s} dtypes")
    for t in tasks:
        print(f"{t.category:15s} L{t.level:<4d} {t.name + t.signature.render():70s} {','.join(t.dtypes)}")
    unloaded = f"; {len(suite.unloaded)} problem(s) not loaded (listed above)" if suite.unloaded else ""
    print(f"{len(tasks)} task(s) in {len({t.category for t in tasks})} categories{unloaded}")
    return 0


def _tasks_show(args: argparse.Namespace) -> int:
    from kbx.tasks.describe import describe
    from kbx.tasks.registry import load_suite, select

    print(describe(select(load_suite(args.suite, args.level), [args.name])[0]))
    return 0


def _tasks_validate(args: argparse.Namespace) -> int:
    from kbx.tasks.validate import validate

    problems, count = validate(args.suite, progress=sys.stdout, level=args.level)
    for problem in problems:
        print(f"kbx: error: {problem}", file=sys.stderr)
    print(f"{count - len(problems)}/{count} task(s) valid")
    return 1 if problems else 0


def _options(args: argparse.Namespace):  # noqa: ANN202 - RunOptions, imported lazily
    from kbx.running.runner import RunOptions

    out = args.out or Path("kbx-out") / time.strftime("%Y%m%d-%H%M%S")
    return RunOptions(
        out_dir=out,
        device=args.device,
        tasks=tuple(args.tasks),
        category=args.category,
        level=args.level,
        shard=args.shard,
        timeout_s=args.timeout,
        compile_timeout_s=args.compile_timeout,
        confined=not args.unconfined,
        jobs=args.jobs,
        gpus=args.gpus,
        executor=args.executor,
        ray_address=args.ray_address,
        suite=args.suite,
        store=args.store,
        use_cache=not args.no_cache,
        timing=_timing(args),
        generation=_generation(args),
        contract=args.contract,
    )


def _shard(text: str) -> tuple[int, int]:
    """`K/N` with 0 <= K < N."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N (e.g. 0/3)") from None
    if not 0 <= k < n:
        raise argparse.ArgumentTypeError(f"{text!r}: need 0 <= K < N")
    return k, n


def _timing(args: argparse.Namespace):  # noqa: ANN202 - TimingSettings, imported lazily
    from kbx.evaluation.bench_inputs import TimingSettings

    if args.no_timing:
        return None
    settings = TimingSettings()
    if args.timing_rounds is not None:
        settings = replace(settings, rounds=args.timing_rounds)
    if args.timing_budget is not None:
        settings = replace(settings, budget_s=args.timing_budget)
    if args.timing_warmup is not None:
        settings = replace(settings, warmup_s=args.timing_warmup)
    if args.fresh_baselines:
        settings = replace(settings, reuse_baselines=False)
    if settings.rounds < 1 or settings.budget_s <= 0 or settings.warmup_s < 0:
        raise KbxError("--timing-rounds must be >= 1, --timing-budget > 0 and --timing-warmup >= 0")
    return settings


def _eval(args: argparse.Namespace) -> int:
    from kbx.running.runner import evaluate_sources

    return _report(evaluate_sources(args.sources, _options(args)))


def _run(args: argparse.Namespace) -> int:
    from kbx.running.runner import resume_run, run_method

    if args.resume:
        return _report(resume_run(args.resume, _options(args)))
    return _report(run_method(args.method, _options(args)))


def _prompt(args: argparse.Namespace) -> int:
    from kbx.generate.prompts import task_prompt
    from kbx.tasks.registry import load_suite, select

    suite = load_suite(args.suite, args.level)
    (task,) = select(suite, [args.task])
    for message in task_prompt(task, {t.name: t for t in suite}, args.gpu, args.backend):
        print(f"===== {message.role}\n{message.content}\n")
    return 0


def _report(result) -> int:  # noqa: ANN001 - RunResult, imported lazily
    from kbx.summary import summary_table

    print(summary_table(result.rows))
    cached = f", {result.served_from_cache} served from the store's cache" if result.served_from_cache else ""
    print(f"\nrun {result.run_id}: {len(result.rows)} evaluation(s) on {result.device} in {result.elapsed_s:.1f}s"
          f"{cached}; results: {result.out_dir / 'results.jsonl'}")
    _say_policies(result.rows)
    if result.unjudged:  # a defect of the suite, or a CUDA candidate without a GPU: the run finished, but not whole
        where = ("run them on a GPU" if all("need a GPU" in u for u in result.unjudged) else "mend the task")
        print(f"kbx: error: {len(result.unjudged)} evaluation(s) could not be judged and were not stored ({where}, "
              f"then `kbx run --resume {result.run_id}`): {result.unjudged[0]}", file=sys.stderr)
        return 1
    if not result.rows:  # a misconfigured sweep must not look like a successful one
        skipped = f" ({len(result.skipped)} input(s) skipped, as listed above)" if result.skipped else ""
        print(f"kbx: error: the run evaluated nothing{skipped}", file=sys.stderr)
        return 1
    return 0


def _say_policies(rows) -> None:  # noqa: ANN001 - results.jsonl rows
    """One line for each policy other than a kernel's that judged rows of the run (`kbx.candidates.policy`): those
    rows are not kernels' results."""
    from kbx.candidates.policy import Policy

    for value in sorted({row.get("policy", Policy.KERNEL.value) for row in rows} - {Policy.KERNEL.value}):
        count = sum(row.get("policy") == value for row in rows)
        print(f"policy {value} ({count} evaluation(s)): {Policy(value).relaxed}")


if __name__ == "__main__":
    sys.exit(main())
