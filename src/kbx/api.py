"""The Python API: `kbx.evaluate(task, source)` for one candidate, `kbx.run(method, ...)` for a whole run.

Each `evaluate` call starts (and stops) a trusted worker; to evaluate many candidates, hold one
`kbx.evaluation.orchestrator.pipeline.Evaluator` open instead and call its `evaluate` repeatedly. `run` is `kbx run`:
the same registered method (`kbx.methods`), the same defaults, the same store and results folder.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from kbx.candidates.extract import extract_code
from kbx.candidates.source import Candidate
from kbx.errors import KbxError
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.evaluation.result import Evaluation
from kbx.generate.settings import GenerationSettings
from kbx.running.runner import RunOptions, RunResult, run_method
from kbx.tasks.registry import load_suite, select
from kbx.tasks.spec import Task


def evaluate(
    task: str | Task,
    source: str,
    *,
    device: str = "auto",
    timeout_s: float | None = None,
    suite: str | Path | None = None,
    confined: bool = True,
    contract: str | None = None,
) -> Evaluation:
    """Evaluate one candidate on one task in an isolated worker.

    Args:
        task: a task name from the suite, or a loaded Task.
        source: the candidate's Python source, or a raw LLM reply with fenced code blocks.
        device: `cpu` (Triton interpreter), `cuda`, or `auto`.
        timeout_s: wall-clock limit for the candidate; the device's default when None.
        suite: the suite holding `task` when it is a name: a folder, or `kernelbench:PATH` for the problems of a
            KernelBench checkout (default: the suite shipped with kbx).
        confined: run the candidate in its OS confinement (namespaces, unprivileged UID, seccomp); False runs it
            as this process's user in the host's namespaces, and the row says so.
        contract: `kernelbench` also judges a KernelBench problem's candidate by KernelBench's own rule
            (`Evaluation.kernelbench`, `kbx.kernelbench_rule`).

    Returns:
        The Evaluation; candidate failures are statuses in it, never exceptions.

    Raises:
        NotJudged: this machine cannot judge it, e.g. a CUDA candidate (one that builds with `load_inline`) that
            compiled where there is no GPU (`NeedsGpu`); a compile error is still an Evaluation (COMPILE_ERROR).
    """
    if isinstance(task, str):
        task = select(load_suite(suite), [task])[0]
    extraction = extract_code(source, task.entry_point) if "```" in source or "~~~" in source else None
    code = extraction.code if extraction else source
    candidate = Candidate("api", task.name, code, problem=extraction.problem if extraction else None)
    limits = Limits(timeout_s=timeout_s, confined=confined)
    with Evaluator(device, limits, contract=contract) as evaluator:
        return evaluator.evaluate(task, candidate)


def run(
    method: str = "reference",
    *,
    model: str | None = None,
    tasks: Sequence[str] = (),
    out_dir: Path | str | None = None,
    **options: Any,
) -> RunResult:
    """Run a registered method (`kbx.methods`: reference, oneshot, sample, refine, or one of your own) over the
    selected tasks, exactly as `kbx run --method METHOD` does: the method fills in its own defaults (refine: 4
    iterations) and refuses options it does not take.

    Args:
        method: the method's name.
        model: `KIND:MODEL` for a method that asks a model.
        tasks: task names (default: the whole suite).
        out_dir: where results.jsonl and run.json go (default: `kbx-out/<time>`, as the CLI).
        options: any field of `kbx.running.runner.RunOptions` (device, category, timeout_s, jobs, store, timing,
            ...) or of
            `kbx.generate.settings.GenerationSettings` (samples, iterations, temperature, max_repairs, ...).

    Raises:
        KbxError: an unknown method or task, a missing model, an option the method does not take.
        TypeError: an option that is neither.
    """
    run_fields = {f.name for f in fields(RunOptions)}
    generation_fields = {f.name for f in fields(GenerationSettings)} - {"model"}
    unknown = set(options) - run_fields - generation_fields
    if unknown:
        raise TypeError(f"kbx.run got unknown option(s): {', '.join(sorted(unknown))}")
    generation = None
    if model is not None:
        generation = GenerationSettings(model=model, **{k: v for k, v in options.items() if k in generation_fields})
    elif set(options) & generation_fields:
        raise KbxError(f"{', '.join(sorted(set(options) & generation_fields))}: only for a method that asks a model "
                       "(give model=KIND:MODEL)")
    out = Path(out_dir) if out_dir is not None else Path("kbx-out") / time.strftime("%Y%m%d-%H%M%S")
    run_options = RunOptions(out_dir=out, tasks=tuple(tasks), generation=generation,
                             **{k: v for k, v in options.items() if k in run_fields})
    return run_method(method, run_options, progress=None)
