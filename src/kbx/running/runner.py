"""Runs: evaluate many (task, candidate) pairs on one device and write `results.jsonl` (DESIGN §9).

`kbx eval` and `kbx run` are thin wrappers over `evaluate_sources` and `run_method`.
"""

from __future__ import annotations

import os
import queue
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from kbx.candidates.ingest import ingest
from kbx.candidates.source import Candidate
from kbx.errors import KbxError, NotJudged
from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.evaluation.result import Evaluation
from kbx.generate.settings import GenerationSettings
from kbx.running.provenance import git_sha
from kbx.running.schedule import (
    describe,
    environment,
    longest_first,
    open_evaluators,
    run_all,
)
from kbx.running.two_part_run import evaluate_in_two_parts, in_two_parts
from kbx.running.writer import Writer, phase_totals, say, write_outputs
from kbx.store.cache import harness_version
from kbx.store.db import RunInfo, Store
from kbx.tasks.registry import Suite, SuiteSpec, open_suite, select
from kbx.tasks.spec import Task


@dataclass(frozen=True)
class RunOptions:
    """How to run: where, on what, how hard."""

    out_dir: Path
    device: str = "auto"
    tasks: tuple[str, ...] = ()
    category: str | None = None
    level: int | None = None
    """Only the tasks of this level (1, 2, 3)."""
    shard: tuple[int, int] | None = None
    """(k, n): of the selected tasks in suite order, only every n-th from the k-th (0-based), so a large run can be
    split into runs that each fit a time slot (`kbx report A+B+...` joins them again)."""
    timeout_s: float | None = None
    compile_timeout_s: float | None = None
    """The limit on building a CUDA candidate's extensions (`Limits.compile_timeout_s`); None: the default. The
    Ray executor's actors use the default."""
    confined: bool = True
    """Confine every candidate worker (`kbx.evaluation.confinement`); False only with `--unconfined`."""
    jobs: int | None = None
    """Concurrent candidate workers per device; default: CPU cores on the CPU, 1 per GPU."""
    gpus: int | None = None
    """GPUs to spread the work over; default: every visible GPU (one trusted worker each). With Ray: actors."""
    executor: str = "local"
    """`local` (this host) or `ray` (one actor per GPU of a Ray cluster)."""
    ray_address: str | None = None
    """The Ray cluster to join (`ray.init(address=...)`); None starts a local one."""
    suite: SuiteSpec = None
    """A suite folder, `kernelbench:PATH`, or None for the suite shipped with kbx (`kbx.tasks.registry`)."""
    secret_seed: int | None = None
    store: Path | None = None
    """The SQLite store (default `kbx.store.default_store_path()`)."""
    resume: str | None = None
    """A run id (or unique prefix) to continue: its finished pairs are skipped, its secret seed reused."""
    use_cache: bool = True
    """Serve work identical to a stored evaluation (`kbx.store.cache`) from the store."""
    model: str | None = None
    timing: TimingSettings | None = TimingSettings()  # noqa: RUF009 - frozen, so one shared default is safe
    """How the performance stage measures on a GPU (part of the cache key); None: correctness only."""
    generation: GenerationSettings | None = None
    """How a generating method (oneshot, sample, refine) asks its model; None for the others."""
    contract: str | None = None
    """Another harness's rule judged beside kbx's verdict (`kernelbench`, `kbx.kernelbench_rule`); part of
    the cache key."""

    def to_config(self) -> dict[str, Any]:
        """What a resumed run needs to redo the same selection."""
        return {
            "selection": {"tasks": list(self.tasks), "category": self.category, "level": self.level,
                          "suite": None if self.suite is None else str(self.suite),
                          "shard": None if self.shard is None else list(self.shard)},
            "timeout_s": self.timeout_s,
            "compile_timeout_s": self.compile_timeout_s,
            "confined": self.confined,
            "timing": None if self.timing is None else self.timing.to_json(),
            "contract": self.contract,
            **({"generation": self.generation.to_json()} if self.generation else {}),
        }


@dataclass
class RunResult:
    """What a run produced."""

    run_id: str
    out_dir: Path
    evaluations: list[Evaluation] = field(default_factory=list)
    """The evaluations this invocation carried out (not those served from cache or done before a resume)."""
    skipped: list[str] = field(default_factory=list)
    device: str = ""
    elapsed_s: float = 0.0
    rows: list[dict[str, Any]] = field(default_factory=list)
    """Every evaluation of the run as stored (its results.jsonl rows), served from cache or not."""
    served_from_cache: int = 0
    unjudged: list[str] = field(default_factory=list)
    """Why each evaluation that could not be judged was not (its task's reference failed); none is stored, so a
    resume after the task is mended evaluates them."""


def run_method(method: str, options: RunOptions, progress: TextIO | None = sys.stderr) -> RunResult:
    """Produce candidates with the registered method `method` (`kbx.methods`) for the selected tasks and evaluate
    them."""
    from kbx.methods import get_method

    chosen = get_method(method)
    generation = chosen.settings(options.generation)
    opened = open_suite(options.suite, options.level)
    suite, unloaded = list(opened.tasks), _not_loaded(opened, options)
    tasks = _selected(suite, options)
    if not tasks:
        raise KbxError("no task matches the selection")
    if generation is None:
        return _run(chosen.candidates(tasks), unloaded, {"method": method}, options, progress)
    from kbx.generate.drive import generating_run

    drive, names, planned = generating_run(chosen, generation, tasks, suite, _stored_generations(options.store),
                                           progress)
    return _run([], unloaded, {"method": method}, replace(options, model=generation.model, generation=generation),
                progress, Generating(drive, names, planned))


def _stored_generations(path: Path | None) -> Callable[[str], tuple[str, list[dict[str, Any]]]]:
    """Reads another stored run's model calls, for `--model replay:run:RUN` (`kbx.generate.records`)."""

    def read(run: str) -> tuple[str, list[dict[str, Any]]]:
        with Store(path) as store:
            run_id = store.run(run).run_id
            return run_id, store.generations(run_id)

    return read


def resume_run(run_id: str, options: RunOptions, progress: TextIO | None = sys.stderr) -> RunResult:
    """Continue a stored run with the selection, method and sources it was started with."""
    with Store(options.store) as store:
        info = store.run(run_id)
    selection = info.config.get("selection", {})
    options = replace(
        options, resume=info.run_id, device=info.device, tasks=tuple(selection.get("tasks") or ()),
        category=selection.get("category"), level=selection.get("level"), suite=selection.get("suite"),
        shard=tuple(selection["shard"]) if selection.get("shard") else None,
        timeout_s=info.config.get("timeout_s"), compile_timeout_s=info.config.get("compile_timeout_s"),
        confined=info.config.get("confined", True), model=info.model,
        timing=_stored_timing(info.config),
        contract=info.config.get("contract"),
        generation=GenerationSettings.from_json(info.config["generation"]) if info.config.get("generation") else None,
    )
    if info.method == "eval":
        return evaluate_sources(info.config.get("sources", []), options, progress)
    return run_method(info.method, options, progress)


def _selected(suite: Sequence[Task], options: RunOptions) -> list[Task]:
    """The tasks the options select: by name and category, then the shard."""
    tasks = select(suite, options.tasks or None, options.category)
    if options.shard is None:
        return tasks
    k, n = options.shard
    return tasks[k::n]


def _stored_timing(config: dict[str, Any]) -> TimingSettings | None:
    """A stored run's timing settings (runs stored before they were recorded timed with the defaults)."""
    if "timing" not in config:
        return TimingSettings()
    return None if config["timing"] is None else TimingSettings(**config["timing"])


def evaluate_sources(sources: Sequence[str], options: RunOptions, progress: TextIO | None = sys.stderr) -> RunResult:
    """Evaluate candidates read from files, directories or JSONL."""
    opened = open_suite(options.suite, options.level)
    suite = list(opened.tasks)
    selected = _selected(suite, options)
    entries = {t.name: t.entry_point for t in suite}
    ingested = ingest(sources, entries, [t.name for t in selected] if options.tasks else None)
    by_name = {t.name: t for t in suite}
    chosen = {t.name for t in selected}  # --category and --shard narrow what the sources hold
    pairs = [(by_name[c.task], c) for c in ingested.candidates if c.task in chosen]
    config = {"method": "eval", "sources": [str(s) for s in sources]}
    return _run(pairs, [*_not_loaded(opened, options), *ingested.skipped], config, options, progress)


def _not_loaded(suite: Suite, options: RunOptions) -> list[str]:
    """One skipped line per problem of the suite that could not become a task (a KernelBench problem kbx cannot
    run), when no task was asked for by name."""
    return [] if options.tasks else [f"not loaded: {line}" for line in suite.unloaded]


def _run(
    pairs: list[tuple[Task, Candidate]],
    skipped: list[str],
    config: dict[str, Any],
    options: RunOptions,
    progress: TextIO | None,
    generating: Generating | None = None,
) -> RunResult:
    for line in skipped:
        say(progress, f"skipped: {line}")
    start = time.monotonic()
    reuse = _reuses(pairs, generating)
    limits = Limits(timeout_s=options.timeout_s, confined=options.confined, compile_timeout_s=options.compile_timeout_s)
    with Store(options.store) as store:
        resumed = store.run(options.resume) if options.resume else None
        secret_seed = store.secret_seed(resumed.run_id) if resumed else options.secret_seed
        with _evaluators(options, limits, secret_seed, reuse) as evaluators:
            setup_s = time.monotonic() - start
            first = evaluators[0]
            run_env = environment(evaluators)
            run_id = _open_run(store, resumed, first, run_env, config, options)
            options.out_dir.mkdir(parents=True, exist_ok=True)  # only now: a run that cannot start leaves none
            result = RunResult(run_id=run_id, out_dir=options.out_dir, skipped=list(skipped), device=first.device)
            done = store.done(run_id)
            todo = longest_first([(t, c) for t, c in pairs if (t.name, c.name) not in done],
                                 store.durations(first.device))
            # A Ray actor runs one evaluation at a time; locally the CPU runs one per core, a GPU one at a time.
            local_cpu = first.device == "cpu" and options.executor == "local"
            jobs = options.jobs or (os.cpu_count() or 1 if local_cpu else 1)
            already = f", {len(done) if generating else len(pairs) - len(todo)} already done" if resumed else ""
            planned = f"up to {generating.planned}" if generating else str(len(todo))
            say(progress, f"kbx: run {run_id}: {planned} evaluation(s) on {describe(evaluators)}, {jobs} at a "
                          f"time per device{already} -> {options.out_dir} (store {store.path})")
            writer = Writer(store, run_id, generating.planned if generating else len(todo), progress,
                            options.use_cache)
            generated, interrupted = _execute(evaluators, todo, writer, jobs, result, generating, options,
                                              (store, run_id, run_env.get("gpu")))
            writer.stopped = interrupted
            result.served_from_cache = writer.served
            result.unjudged = list(writer.unjudged)
            result.elapsed_s = time.monotonic() - start
            if not interrupted:
                store.end_run(run_id, result.elapsed_s)
            run_info = _run_info(run_id, config, pairs, skipped, result, setup_s, run_env, store, first.secret_seed,
                                 generating, generated, interrupted)
            result.rows = store.rows(run_id)
            write_outputs(options.out_dir, result.rows, run_info)
            if interrupted:  # written before the evaluators close: their in-flight work is dropped
                raise KeyboardInterrupt
    return result


def _execute(
    evaluators: list[Evaluator], todo: list[tuple[Task, Candidate]], writer: Writer, jobs: int, result: RunResult,
    generating: Generating | None, options: RunOptions, where: tuple[Store, str, str | None],
) -> tuple[dict[str, Any] | None, bool]:
    """Evaluate the run's work (a generating method's as it makes it, then `todo`); what the generating method
    reported, and whether the user interrupted (what is stored stays, and the run stays open for `--resume`)."""
    store, run_id, gpu = where
    generated = None
    try:
        if generating is not None:
            evaluate = _slot_evaluate(evaluators, jobs, writer, result)
            generated = generating.run(evaluate, store, run_id, gpu, len(evaluators) * jobs)
        if in_two_parts(evaluators[0], options.executor):
            result.evaluations += evaluate_in_two_parts(evaluators, todo, writer, jobs)
        else:
            for evaluation in run_all(evaluators, todo, lambda ev, pair: writer.evaluate(ev, *pair), jobs):
                if evaluation is not None:
                    result.evaluations.append(evaluation)
    except KeyboardInterrupt:
        return generated, True
    return generated, False


def _run_info(
    run_id: str, config: dict[str, Any], pairs: list[tuple[Task, Candidate]], skipped: list[str], result: RunResult,
    setup_s: float, run_env: dict[str, Any], store: Store, secret_seed: int, generating: Generating | None,
    generated: dict[str, Any] | None, interrupted: bool,
) -> dict[str, Any]:
    """The run's run.json."""
    return {
        "run_id": run_id,
        **config,
        "device": result.device,
        "tasks": sorted({t.name for t, _ in pairs} | set(generating.tasks if generating else ())),
        "evaluations": len(store.rows(run_id)) if generating else len(pairs),
        "served_from_cache": result.served_from_cache,
        "skipped": skipped,
        "unjudged": result.unjudged,
        "elapsed_s": round(result.elapsed_s, 2),
        "setup_s": round(setup_s, 2),
        "phases_s": phase_totals(result.evaluations),
        "git_sha": git_sha(),
        "harness": harness_version(),
        "store": str(store.path),
        "environment": run_env,
        "secret_seed": secret_seed,
        **({"generation": generated} if generated is not None else {}),
        **({"interrupted": True} if interrupted else {}),
    }


@dataclass(frozen=True)
class Generating:
    """A method that makes candidates while the run goes (`kbx.generate`), rather than a list of them up front."""

    run: Callable[[Callable[[Task, Candidate], dict[str, Any]], Store, str, str | None, int], dict[str, Any]]
    """Given `evaluate(task, candidate) -> stored row`, the store, the run id, the GPU name (None on the CPU) and
    how many evaluations may run at once: makes and evaluates its candidates, returns a summary for run.json."""
    tasks: tuple[str, ...]
    planned: int
    """Evaluations at most (every chain taking every step), for the progress line."""


def _slot_evaluate(evaluators: Sequence[Evaluator], jobs: int, writer: Writer, result: RunResult
                   ) -> Callable[[Task, Candidate], dict[str, Any]]:
    """`evaluate(task, candidate) -> row` that blocks until one of `jobs` slots per evaluator is free."""
    slots: queue.Queue[Evaluator] = queue.Queue()
    for evaluator in evaluators:
        for _ in range(max(1, jobs)):
            slots.put(evaluator)

    def evaluate(task: Task, candidate: Candidate) -> dict[str, Any]:
        evaluator = slots.get()
        try:
            evaluation, row = writer.evaluate_row(evaluator, task, candidate)
        except NotJudged as exc:  # reported here; the generating method ends that chain
            writer.not_judged(task, candidate, exc)
            raise
        finally:
            slots.put(evaluator)
        if evaluation is not None:
            result.evaluations.append(evaluation)
        return row

    return evaluate


def _reuses(pairs: list[tuple[Task, Candidate]], generating: Generating | None) -> bool:
    """Whether a task of the run may have a second candidate, whose evaluation reuses the first's references and
    baselines (`Evaluator`'s `reuse`): a method that makes candidates as it goes may make several of a task."""
    return generating is not None or len({task.name for task, _ in pairs}) < len(pairs)


def _evaluators(options: RunOptions, limits: Limits | None, secret_seed: int | None, reuse: bool) -> Any:
    """The run's evaluators: local (one per visible GPU, or one on the CPU) or Ray actors."""
    if options.executor == "local":
        return open_evaluators(options.device, options.gpus, limits, secret_seed, options.timing, options.contract,
                               reuse)
    if options.executor == "ray":
        if options.contract is not None:
            raise KbxError("--contract runs on the local executor only (--executor local)")
        from kbx.running.ray_executor import open_ray_evaluators

        return open_ray_evaluators(options.device, options.gpus, limits, secret_seed, options.ray_address,
                                   options.suite, options.timing)
    raise KbxError(f"unknown executor {options.executor!r}: local or ray")


def _open_run(store: Store, resumed: RunInfo | None, evaluator: Evaluator, run_env: dict[str, Any],
              config: dict[str, Any], options: RunOptions) -> str:
    """The id of the run to write into: the resumed one (on the device it ran on), or a new one."""
    if resumed is not None:
        if resumed.device != evaluator.device:
            raise KbxError(f"run {resumed.run_id} ran on {resumed.device}, not {evaluator.device}: resume it there")
        return resumed.run_id
    run_id = uuid.uuid4().hex[:12]
    store.begin_run(
        run_id, method=str(config.get("method")), model=options.model, device=evaluator.device,
        git_sha=git_sha(), harness=harness_version(), config={**config, **options.to_config()},
        environment=run_env, secret_seed=evaluator.secret_seed,
    )
    return run_id

