"""Runs: evaluate many (task, candidate) pairs on one device and write `results.jsonl` (DESIGN §9).

`kbx eval` and `kbx run` are thin wrappers over `evaluate_sources` and `run_method`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from threading import Lock
from types import MappingProxyType
from typing import Any, TextIO

from kbx.candidates.ingest import ingest
from kbx.candidates.source import Candidate
from kbx.errors import KbxError
from kbx.evaluation.pipeline import Evaluator
from kbx.evaluation.result import Evaluation
from kbx.evaluation.sandbox import Limits
from kbx.tasks.registry import load_suite, select
from kbx.tasks.spec import Task


@dataclass(frozen=True)
class RunOptions:
    """How to run: where, on what, how hard."""

    out_dir: Path
    device: str = "auto"
    tasks: tuple[str, ...] = ()
    category: str | None = None
    timeout_s: float | None = None
    jobs: int | None = None
    """Concurrent candidate workers; default: CPU cores on the CPU, 1 on a GPU."""
    suite: Path | None = None
    secret_seed: int | None = None


@dataclass
class RunResult:
    """What a run produced."""

    run_id: str
    out_dir: Path
    evaluations: list[Evaluation] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    device: str = ""
    elapsed_s: float = 0.0


def reference_candidates(tasks: Sequence[Task]) -> list[tuple[Task, Candidate]]:
    """The `reference` method: each task's own solution.py, the oracle row of every report."""
    pairs = []
    for task in tasks:
        path = task.solution_file
        code = path.read_text() if path.is_file() else None
        provenance = MappingProxyType({"method": "reference", "path": str(path)})
        problem = None if code is not None else f"{path} is missing"
        pairs.append((task, Candidate(str(path), task.name, code, provenance=provenance, problem=problem)))
    return pairs


METHODS: dict[str, Callable[[Sequence[Task]], list[tuple[Task, Candidate]]]] = {"reference": reference_candidates}
"""Candidate-producing methods by name; generation methods register here."""


def run_method(method: str, options: RunOptions, progress: TextIO | None = sys.stderr) -> RunResult:
    """Produce candidates with `method` for the selected tasks and evaluate them."""
    if method not in METHODS:
        raise KbxError(f"unknown method {method!r}; available: {', '.join(METHODS)}")
    tasks = select(load_suite(options.suite), options.tasks or None, options.category)
    if not tasks:
        raise KbxError("no task matches the selection")
    return _run(METHODS[method](tasks), [], {"method": method}, options, progress)


def evaluate_sources(sources: Sequence[str], options: RunOptions, progress: TextIO | None = sys.stderr) -> RunResult:
    """Evaluate candidates read from files, directories or JSONL."""
    suite = load_suite(options.suite)
    selected = select(suite, options.tasks or None, options.category)
    ingested = ingest(sources, [t.name for t in suite], [t.name for t in selected] if options.tasks else None)
    by_name = {t.name: t for t in suite}
    pairs = [(by_name[c.task], c) for c in ingested.candidates]
    config = {"method": "eval", "sources": [str(s) for s in sources]}
    return _run(pairs, ingested.skipped, config, options, progress)


def _run(
    pairs: list[tuple[Task, Candidate]],
    skipped: list[str],
    config: dict[str, Any],
    options: RunOptions,
    progress: TextIO | None,
) -> RunResult:
    for line in skipped:
        _say(progress, f"skipped: {line}")
    options.out_dir.mkdir(parents=True, exist_ok=True)
    result = RunResult(run_id=uuid.uuid4().hex[:12], out_dir=options.out_dir, skipped=list(skipped))
    start = time.monotonic()
    limits = Limits(timeout_s=options.timeout_s) if options.timeout_s else None
    with Evaluator(options.device, limits, options.secret_seed) as evaluator:
        setup_s = time.monotonic() - start
        result.device = evaluator.device
        jobs = options.jobs or (os.cpu_count() or 1 if evaluator.device == "cpu" else 1)
        _say(progress, f"kbx: {len(pairs)} evaluation(s) on {evaluator.device}, {jobs} at a time -> {options.out_dir}")
        with open(options.out_dir / "results.jsonl", "w") as sink:
            writer = _Writer(sink, len(pairs), progress)
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                for evaluation in pool.map(lambda pair: writer.add(evaluator.evaluate(*pair)), pairs):
                    result.evaluations.append(evaluation)
        result.elapsed_s = time.monotonic() - start
        run_info = {
            "run_id": result.run_id,
            **config,
            "device": evaluator.device,
            "tasks": sorted({t.name for t, _ in pairs}),
            "evaluations": len(result.evaluations),
            "skipped": skipped,
            "elapsed_s": round(result.elapsed_s, 2),
            "setup_s": round(setup_s, 2),
            "phases_s": _phase_totals(result.evaluations),
            "git_sha": _git_sha(),
            "environment": evaluator.environment,
            "secret_seed": evaluator.secret_seed,
        }
    (options.out_dir / "run.json").write_text(json.dumps(run_info, indent=2) + "\n")
    return result


def _phase_totals(evaluations: list[Evaluation]) -> dict[str, float]:
    """Seconds by phase summed over the evaluations (more than the wall time when they ran in parallel)."""
    totals: dict[str, float] = {}
    for evaluation in evaluations:
        for phase, seconds in evaluation.phases.items():
            totals[phase] = totals.get(phase, 0.0) + seconds
    return {phase: round(seconds, 2) for phase, seconds in sorted(totals.items())}


class _Writer:
    """Appends each evaluation to results.jsonl as soon as it is known, and reports progress."""

    def __init__(self, sink: TextIO, total: int, progress: TextIO | None) -> None:
        self._sink = sink
        self._total = total
        self._done = 0
        self._progress = progress
        self._lock = Lock()

    def add(self, evaluation: Evaluation) -> Evaluation:
        with self._lock:
            self._sink.write(json.dumps(evaluation.to_json()) + "\n")
            self._sink.flush()
            self._done += 1
            note = f" - {evaluation.message[:120]}" if evaluation.message else ""
            _say(
                self._progress,
                f"[{self._done}/{self._total}] {evaluation.task:28s} {evaluation.status.value:16s} "
                f"{evaluation.elapsed_s:6.1f}s  {evaluation.candidate}{note}",
            )
        return evaluation


def _say(stream: TextIO | None, line: str) -> None:
    if stream is not None:
        print(line, file=stream, flush=True)


def _git_sha() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
            cwd=Path(__file__).resolve().parent,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None
