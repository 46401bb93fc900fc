"""Spreading a run's work over a host's devices (DESIGN §7): one trusted worker and its candidate workers per GPU.

The orchestrator never touches CUDA, so it learns the GPUs from `CUDA_VISIBLE_DEVICES` or `nvidia-smi`. Each GPU
gets its own `Evaluator` pinned to it (its trusted worker and every candidate worker see only that GPU, and its
performance stage holds that GPU's lock); worker threads take (task, candidate) pairs from one shared queue, so a
slow task on one GPU does not hold back the others. On a CPU-only host one evaluator runs a candidate per core.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any, TypeVar

from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.cases import new_secret_seed
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits

Job = TypeVar("Job")
Outcome = TypeVar("Outcome")


def visible_gpus() -> list[str]:
    """The GPUs this process may use, as `CUDA_VISIBLE_DEVICES` entries; [] when there are none or no driver."""
    configured = os.environ.get("CUDA_VISIBLE_DEVICES")
    if configured is not None:
        return [entry.strip() for entry in configured.split(",") if entry.strip() and entry.strip() != "-1"]
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line.strip() for line in out.stdout.splitlines() if line.strip().isdigit()] if out.returncode == 0 else []


def plan_gpus(device: str, gpus: int | None) -> list[str | None]:
    """One entry per evaluator to open: GPU ids to pin to, or [None] for a single unpinned evaluator."""
    if device == "cpu" or gpus == 1:
        return [None]
    found = visible_gpus()
    if len(found) <= 1:
        return [None]
    return list(found[: gpus or len(found)])


@contextmanager
def open_evaluators(
    device: str, gpus: int | None, limits: Limits | None, secret_seed: int | None,
    timing: TimingSettings | None = TimingSettings(),  # noqa: B008 - frozen, so one shared default is safe
    contract: str | None = None, reuse: bool = True,
) -> Iterator[list[Evaluator]]:
    """The evaluators of a run, all sharing one secret seed, timing settings and added contract; closed on exit.
    `reuse`: whether a task may have several candidates (`Evaluator`)."""
    seed = new_secret_seed() if secret_seed is None else secret_seed
    with ExitStack() as stack:
        yield [stack.enter_context(Evaluator(device, limits, seed, timing=timing, gpu=gpu, contract=contract,
                                             reuse=reuse)) for gpu in plan_gpus(device, gpus)]


def longest_first(pairs: Sequence[tuple[Any, Any]], durations: dict[str, float]) -> list[tuple[Any, Any]]:
    """(task, candidate) pairs in the order to start them: tasks with no known wall time (`durations`: the store's
    latest on this kind of device) first, as they may be long, in the order given; then the others, longest first,
    so that no long task starts last and keeps one slot busy while the others sit idle."""
    unknown = [pair for pair in pairs if pair[0].name not in durations]
    known = [pair for pair in pairs if pair[0].name in durations]
    return unknown + sorted(known, key=lambda pair: -durations[pair[0].name])


def run_all(
    evaluators: Sequence[Evaluator], jobs: Sequence[Job], work: Callable[[Evaluator, Job], Outcome],
    per_evaluator: int,
) -> list[Outcome]:
    """Run `work(evaluator, job)` for every job, `per_evaluator` threads per evaluator pulling from one queue.
    Outcomes come back in completion order. An exception in `work` (a harness bug) stops the run and is raised."""
    queue = deque(jobs)
    lock = threading.Lock()
    outcomes: list[Outcome] = []
    errors: list[BaseException] = []

    def worker(evaluator: Evaluator) -> None:
        while not errors:
            with lock:
                if not queue:
                    return
                job = queue.popleft()
            try:
                outcome = work(evaluator, job)
            except BaseException as exc:  # re-raised in the caller's thread below
                errors.append(exc)
                return
            with lock:
                outcomes.append(outcome)

    # Round-robin, so the first jobs go to different evaluators.
    threads = [threading.Thread(target=worker, args=(evaluator,), name=f"kbx-run-{i}", daemon=True)
               for _ in range(max(1, per_evaluator)) for i, evaluator in enumerate(evaluators)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return outcomes


def describe(evaluators: Sequence[Evaluator]) -> str:
    """`cpu`, `cuda`, or `cuda on GPUs 0,1` for the run's banner."""
    pinned = [e.gpu for e in evaluators if e.gpu is not None]
    if pinned:
        return f"{evaluators[0].device} on GPUs {','.join(pinned)}"
    if len(evaluators) > 1:
        return f"{evaluators[0].device} x {len(evaluators)} evaluators"
    return evaluators[0].device


def environment(evaluators: Sequence[Evaluator]) -> dict[str, Any]:
    """The run's environment: the first evaluator's, with the GPUs the run used."""
    env = dict(evaluators[0].environment)
    pinned = [e.gpu for e in evaluators if e.gpu is not None]
    if pinned:
        env["gpus"] = pinned
    return env
