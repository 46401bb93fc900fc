"""Where a candidate's timing moves between evaluations (issue 19, point 4): one solution on one bench slot, timed
by `time_call` exactly as the performance stage times it, in three arrangements:
  same    - one process, one set of input tensors, timed `--n` times;
  alloc   - one process, the input sets (and the flusher) made anew before each of `--n` timings;
  process - `--n` fresh processes, each making its inputs and timing once.
Prints the spread (max/min - 1) and every median per arrangement. If `process` spreads far more than `alloc`,
the cause lives in the process (its CUDA context, its allocator's placement), not in the inputs.

`--variants` times the `process` arrangement once more per named change to the protocol, to find one that holds
a fresh process's timing still: `sets12` (12 input sets in the rotation instead of 3: more placements per
median), `warm1` (1 s of warm-up instead of 0.1 s), `pinned` (the process pinned to the CPUs local to its GPU).

    PYTHONPATH=src python3 benchmarks/process_variance.py --task relu --workload bench --dtype float16 [--n 6]
        [--variants sets12 warm1 pinned]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import torch

from kbx.tasks.module import import_task
from kbx.tasks.registry import load_suite
from kbx.timing.measure import WARMUP_S, CudaClock, L2Flusher, time_call
from kbx.timing.refresh import ValueRefresher

SEEDS = (11, 12, 13)
VARIANTS = {"sets12": {"sets": 12}, "warm1": {"warmup": 1.0}, "pinned": {"pinned": True}}


def _local_cpus() -> set[int]:
    """The CPUs on the NUMA node of the current GPU (from sysfs), or every CPU where sysfs does not say."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    bus = f"{props.pci_domain_id:04x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0"
    try:
        text = Path(f"/sys/bus/pci/devices/{bus}/local_cpulist").read_text().strip()
    except OSError:
        return set(os.sched_getaffinity(0))
    cpus: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    return cpus


def _setup(task_name: str, workload_name: str, dtype: str, sets: int = len(SEEDS)):  # noqa: ANN202
    task = next(t for t in load_suite() if t.name == task_name)
    code = import_task(task)
    spec = importlib.util.spec_from_file_location("solution", task.path / "solution.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    workload = next(w for w in task.workloads if w.name == workload_name)

    def inputs() -> list[dict]:
        return [code.make_inputs(workload, dtype, torch.Generator(device="cuda").manual_seed(SEEDS[0] + i))
                for i in range(sets)]

    return getattr(module, task.name), inputs


def _time(fn, sets, flusher=None, warmup: float = WARMUP_S) -> float:  # noqa: ANN001
    measured = time_call(fn, sets, clock=CudaClock(), flusher=flusher or L2Flusher(),
                         refresh=ValueRefresher("cuda"), warmup_s=warmup)
    return measured.summary.median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="relu")
    parser.add_argument("--workload", default="bench")
    parser.add_argument("--dtype", default="float16")
    parser.add_argument("--n", type=int, default=6)
    parser.add_argument("--variants", nargs="*", default=[], choices=sorted(VARIANTS))
    parser.add_argument("--once", action="store_true", help="(internal) time once in this process, print JSON")
    parser.add_argument("--sets", type=int, default=len(SEEDS), help="(internal) input sets in the rotation")
    parser.add_argument("--warmup", type=float, default=WARMUP_S, help="(internal) warm-up seconds")
    parser.add_argument("--pinned", action="store_true", help="(internal) pin to the GPU's local CPUs")
    args = parser.parse_args()
    if args.once:
        if args.pinned:
            os.sched_setaffinity(0, _local_cpus())
        fn, inputs = _setup(args.task, args.workload, args.dtype, args.sets)
        print(json.dumps({"median_ms": _time(fn, inputs(), warmup=args.warmup)}))
        return
    fn, inputs = _setup(args.task, args.workload, args.dtype)
    sets, flusher = inputs(), L2Flusher()
    results = {"same": [_time(fn, sets, flusher) for _ in range(args.n)]}
    del sets
    results["alloc"] = [_time(fn, inputs()) for _ in range(args.n)]
    results["process"] = _in_processes(args, {})
    for name in args.variants:
        results[f"process+{name}"] = _in_processes(args, VARIANTS[name])
    print(f"{args.task} {args.workload}/{args.dtype} on {torch.cuda.get_device_name()}")
    for name, values in results.items():
        spread = max(values) / min(values) - 1
        print(f"  {name:8s} spread {spread:6.2%}  medians ms: {' '.join(f'{v:.4f}' for v in values)}")


def _in_processes(args: argparse.Namespace, change: dict) -> list[float]:
    """`args.n` fresh processes' medians, each timing once with the protocol changed by `change`."""
    command = [sys.executable, __file__, "--task", args.task, "--workload", args.workload, "--dtype", args.dtype,
               "--once", "--sets", str(change.get("sets", len(SEEDS))),
               "--warmup", str(change.get("warmup", WARMUP_S))] + (["--pinned"] if change.get("pinned") else [])
    medians = []
    for _ in range(args.n):
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        medians.append(json.loads(done.stdout.strip().splitlines()[-1])["median_ms"])
    return medians


if __name__ == "__main__":
    main()
