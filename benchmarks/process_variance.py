"""Where a candidate's timing moves between evaluations (issue 19, point 4): one solution on one bench slot, timed
by `time_call` exactly as the performance stage times it, in three arrangements:
  same    - one process, one set of input tensors, timed `--n` times;
  alloc   - one process, the input sets (and the flusher) made anew before each of `--n` timings;
  process - `--n` fresh processes, each making its inputs and timing once.
Prints the spread (max/min - 1) and every median per arrangement. If `process` spreads far more than `alloc`,
the cause lives in the process (its CUDA context, its allocator's placement), not in the inputs.

    PYTHONPATH=src python3 benchmarks/process_variance.py --task relu --workload bench --dtype float16 [--n 6]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys

import torch

from kbx.tasks.module import import_task
from kbx.tasks.registry import load_suite
from kbx.timing.measure import CudaClock, L2Flusher, time_call
from kbx.timing.refresh import ValueRefresher

SEEDS = (11, 12, 13)


def _setup(task_name: str, workload_name: str, dtype: str):  # noqa: ANN202
    task = next(t for t in load_suite() if t.name == task_name)
    code = import_task(task)
    spec = importlib.util.spec_from_file_location("solution", task.path / "solution.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    workload = next(w for w in task.workloads if w.name == workload_name)

    def inputs() -> list[dict]:
        return [code.make_inputs(workload, dtype, torch.Generator(device="cuda").manual_seed(s)) for s in SEEDS]

    return getattr(module, task.name), inputs


def _time(fn, sets, flusher=None) -> float:  # noqa: ANN001
    measured = time_call(fn, sets, clock=CudaClock(), flusher=flusher or L2Flusher(),
                         refresh=ValueRefresher("cuda"))
    return measured.summary.median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="relu")
    parser.add_argument("--workload", default="bench")
    parser.add_argument("--dtype", default="float16")
    parser.add_argument("--n", type=int, default=6)
    parser.add_argument("--once", action="store_true", help="(internal) time once in this process, print JSON")
    args = parser.parse_args()
    fn, inputs = _setup(args.task, args.workload, args.dtype)
    if args.once:
        print(json.dumps({"median_ms": _time(fn, inputs())}))
        return
    sets, flusher = inputs(), L2Flusher()
    results = {"same": [_time(fn, sets, flusher) for _ in range(args.n)]}
    del sets
    results["alloc"] = [_time(fn, inputs()) for _ in range(args.n)]
    results["process"] = []
    for _ in range(args.n):
        done = subprocess.run([sys.executable, __file__, "--task", args.task, "--workload", args.workload,
                               "--dtype", args.dtype, "--once"], capture_output=True, text=True, check=True)
        results["process"].append(json.loads(done.stdout.strip().splitlines()[-1])["median_ms"])
    print(f"{args.task} {args.workload}/{args.dtype} on {torch.cuda.get_device_name()}")
    for name, values in results.items():
        spread = max(values) / min(values) - 1
        print(f"  {name:8s} spread {spread:6.2%}  medians ms: {' '.join(f'{v:.4f}' for v in values)}")


if __name__ == "__main__":
    main()
