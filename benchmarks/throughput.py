"""Evaluations through the Python API with one `Evaluator` kept open (the RL loop): the median cost of an evaluation
by phase, and evaluations per minute, with candidate workers forked by the zygote and started fresh.

    PYTHONPATH=src python3 benchmarks/throughput.py [--device cpu|cuda] [--tasks relu ...] [--repeat N] [--timed]
        [--part correctness] [--fresh] [--concurrency N]

Correctness only unless --timed (GPU). The first evaluation of each Evaluator is left out of the medians (it pays
for the trusted worker's and the zygote's start and the first compile); each mode runs every task `--repeat` times
after it. `--concurrency N` keeps N evaluations in flight from N threads (the Evaluator is thread-safe: an RL loop
evaluating a batch of samples at once); evaluations per minute then count the wall of the whole batch. Results go
to docs/performance.md with device, date and versions.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import torch
import triton

from kbx.candidates.source import Candidate
from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.registry import load_suite, select

PHASES = ("static", "start", "import", "cases", "judge", "prepare", "performance")


def measure(device: str, tasks: list, repeat: int, timed: bool, zygote: bool, part: str = "all",
            concurrency: int = 1) -> dict:
    """Median seconds by phase and in all, and evaluations per minute, over `repeat` rounds of every task,
    `concurrency` at a time; `part` as `Evaluator.evaluate` takes it (`correctness`: smoke and check sizes only, no
    bench-size case)."""
    timing = TimingSettings() if timed else None
    with Evaluator(device, Limits(timeout_s=600), timing=timing) as evaluator:
        if not zygote and evaluator._zygote is not None:
            evaluator._zygote.close()
            evaluator._zygote = None
        candidates = [(t, Candidate("solution", t.name, (t.path / "solution.py").read_text())) for t in tasks]
        evaluator.evaluate(*candidates[0], part=part)  # warm-up: compiles, the zygote's imports

        def one(pair: tuple) -> tuple[float, object]:
            began = time.perf_counter()
            evaluation = evaluator.evaluate(*pair, part=part)
            return time.perf_counter() - began, evaluation

        start = time.perf_counter()
        with ThreadPoolExecutor(concurrency) as pool:
            done = list(pool.map(one, candidates * repeat))
        wall = time.perf_counter() - start
    return {
        "phases": {name: statistics.median(e.phases.get(name, 0.0) for _, e in done) for name in PHASES},
        "median_s": statistics.median(t for t, _ in done),
        "per_minute": 60 * len(done) / wall,
        "statuses": sorted({e.status.value for _, e in done}),
        "per_task": {t.name: statistics.median(s for s, e in done if e.task == t.name) for t in tasks},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--tasks", nargs="+", default=["relu", "softmax", "layer_norm"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timed", action="store_true")
    parser.add_argument("--part", choices=("all", "correctness"), default="all",
                        help="correctness: the cases below bench size only (the quick check of an RL loop)")
    parser.add_argument("--fresh", action="store_true", help="also measure with workers started fresh")
    parser.add_argument("--concurrency", type=int, default=1, help="evaluations in flight at once")
    args = parser.parse_args()
    tasks = select(load_suite(), args.tasks)
    where = torch.cuda.get_device_name() if args.device == 'cuda' else f'{os.cpu_count()} cores'
    print(f"device {args.device} ({where}),"
          f" torch {torch.__version__}, triton {triton.__version__}, {time.strftime('%Y-%m-%d')}")
    print(f"{'workers':9} {'median s':>9} {'evals/min':>9}  " + " ".join(f"{p:>11}" for p in PHASES) + "  statuses")
    print(f"part {args.part}, {args.concurrency} at a time")
    for label, zygote in (("zygote", True), ("fresh", False))[: 2 if args.fresh else 1]:
        row = measure(args.device, tasks, args.repeat, args.timed, zygote, args.part, args.concurrency)
        cells = " ".join(f"{row['phases'][p]:11.3f}" for p in PHASES)
        print(f"{label:9} {row['median_s']:9.2f} {row['per_minute']:9.1f}  {cells}  {','.join(row['statuses'])}")
        print("          median s by task: " + ", ".join(f"{k} {v:.2f}" for k, v in row["per_task"].items()))


if __name__ == "__main__":
    main()
