"""The same solutions timed several times in one run (issue 19's A/A): how far each task's speedups move between
repeats, and what reusing the baselines (`kbx.evaluation.orchestrator.baselines`) saves per timed evaluation.

    PYTHONPATH=src python3 benchmarks/aa_in_run.py [--tasks relu softmax ...] [--repeat 3] [--fresh-baselines]
        [--input-sets 12] [--rounds 12 --budget 0.1 --warmup 0.02]

One `Evaluator` (one GPU); every task's solution is evaluated `--repeat` times in turn, all tasks once per pass, so
other tasks' stages run between two timings of one task as in a real run. Prints per task the speedups of every
repeat, the baseline source and canary readings, then the drift of the speedup vs eager and vs compile between
repeats (|x / first - 1|) and the median wall seconds of the first and the later evaluations.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import torch
import triton

from kbx.candidates.source import Candidate
from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.registry import load_suite, select
from kbx.timing.stats import quantile

DEFAULT_TASKS = ("relu", "softmax", "layer_norm", "sum", "matmul", "cross_entropy", "gelu", "argmax")


def _sources(evaluation) -> str:  # noqa: ANN001 - an Evaluation
    workloads = (evaluation.performance or {}).get("workloads") or []
    return ",".join(sorted({w.get("baselines", "?") for w in workloads})) or "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="+", default=list(DEFAULT_TASKS))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--fresh-baselines", action="store_true")
    parser.add_argument("--input-sets", type=int, default=TimingSettings.input_sets,
                        help="input sets rotated in each measurement (TimingSettings.input_sets)")
    parser.add_argument("--rounds", type=int, default=TimingSettings.rounds, help="rounds per slot")
    parser.add_argument("--budget", type=float, default=TimingSettings.budget_s,
                        help="sampling seconds per side per round")
    parser.add_argument("--warmup", type=float, default=TimingSettings.warmup_s,
                        help="warm-up seconds per side per round")
    parser.add_argument("--rows", default=os.path.join(os.environ.get("OUT", "."), "aa_rows.jsonl"),
                        help="where every evaluation's row goes (performance JSON included)")
    args = parser.parse_args()
    tasks = select(load_suite(), args.tasks, None)
    timing = TimingSettings(rounds=args.rounds, warmup_s=args.warmup, budget_s=args.budget,
                            reuse_baselines=not args.fresh_baselines, input_sets=args.input_sets)
    print(f"{torch.cuda.get_device_name()} torch {torch.__version__} triton {triton.__version__} "
          f"{timing.to_json()}", flush=True)
    speedups: dict[str, list[tuple[float, float]]] = {t.name: [] for t in tasks}
    walls: dict[int, list[float]] = {}
    with Evaluator("cuda", Limits(timeout_s=600), timing=timing) as evaluator:
        for repeat in range(args.repeat):
            for task in tasks:
                candidate = Candidate("solution", task.name, (task.path / "solution.py").read_text())
                began = time.perf_counter()
                evaluation = evaluator.evaluate(task, candidate)
                walls.setdefault(repeat, []).append(time.perf_counter() - began)
                perf = evaluation.performance or {}
                with open(args.rows, "a") as rows:
                    rows.write(json.dumps({"repeat": repeat, **evaluation.to_json()}) + "\n")
                print(f"{repeat} {task.name:24s} {evaluation.status.value:16s} eager {perf.get('speedup_eager')} "
                      f"compile {perf.get('speedup_compile')} baselines {_sources(evaluation)} "
                      f"perf {evaluation.phases.get('performance', 0):.1f}s {evaluation.message[:160]}", flush=True)
                if perf.get("speedup_eager") and perf.get("speedup_compile"):
                    speedups[task.name].append((perf["speedup_eager"], perf["speedup_compile"]))
    for side, index in (("eager", 0), ("compile", 1)):
        drifts = sorted(abs(s[index] / runs[0][index] - 1) for runs in speedups.values() if len(runs) > 1
                        for s in runs[1:])
        if drifts:
            print(f"A/A drift vs {side} over {len(drifts)}: p50 {quantile(drifts, 0.5):.2%} "
                  f"p95 {quantile(drifts, 0.95):.2%} max {drifts[-1]:.2%}")
    for repeat, values in sorted(walls.items()):
        print(f"repeat {repeat}: median wall {statistics.median(values):.1f} s per timed evaluation")


if __name__ == "__main__":
    main()
