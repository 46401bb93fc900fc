"""Replay one case of a stored run in a plain process: the inputs a worker built from the run's secret seed, the
reference's and the solution's outputs, and where they differ in finiteness.

    PYTHONPATH=src python3 scripts/replay_case.py --store kbx-out/gpu/kbx.db --run c7e38f7edba0 \
        pow bench float16 --at 4679,7095 [--candidate path.py] [--device cuda]

For a failure a run reported at an element (`first at [...]`): is it the candidate's own arithmetic on those
inputs (it repeats here), or something between the processes (it does not)? Only secret-seed cases of published
workloads are rebuilt (a bench case's seed is the secret one). It runs the candidate in this process: use it on the
suite's own solutions, never on untrusted code.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from calibrate_contracts import load_solution  # noqa: E402  (benchmarks/, beside this script's folder)

from kbx.evaluation.cases import case_seed  # noqa: E402
from kbx.tasks.module import import_task  # noqa: E402
from kbx.tasks.registry import load_suite, select  # noqa: E402


def _tensors(value: object) -> list[torch.Tensor]:
    values = value if isinstance(value, (tuple, list)) else [value]
    return [v for v in values if torch.is_tensor(v)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task")
    parser.add_argument("workload")
    parser.add_argument("dtype")
    parser.add_argument("--store", required=True, help="the run's SQLite store")
    parser.add_argument("--run", required=True, help="the run id")
    parser.add_argument("--at", default="", help="an element of the first output, e.g. 4679,7095 (a prefix: a slice)")
    parser.add_argument("--candidate", type=Path, help="a candidate file (default: the task's solution)")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    row = sqlite3.connect(args.store).execute("select secret_seed from run_secrets where run_id = ?",
                                              (args.run,)).fetchone()
    if row is None:
        print(f"no secret seed for run {args.run} in {args.store}", file=sys.stderr)
        return 2
    if args.device == "cpu":
        from kbx.evaluation.candidate.interpreter import install_interpreter_shims

        install_interpreter_shims()  # as a candidate worker on the CPU runs (TRITON_INTERPRET=1 must be set)
    (task,) = select(load_suite(), [args.task])
    code = import_task(task)
    run = load_solution(task, args.candidate)
    workload = next(w for w in task.workloads if w.name == args.workload)
    seed = case_seed(int(row[0]), task.name, workload.name, args.dtype)
    inputs = code.make_inputs(workload, args.dtype, torch.Generator(device=args.device).manual_seed(seed))
    at = tuple(int(i) for i in args.at.split(",") if i.strip())
    for name, value in inputs.items():
        if torch.is_tensor(value) and at and value.dim() >= len(at):
            print(f"input {name}{list(at)}: {value[at].flatten()[:8].tolist()}")
    with torch.no_grad():
        reference = _tensors(code.reference(**inputs))
        for repeat in range(args.repeats):
            got = _tensors(run(**inputs))
            if args.device == "cuda":
                torch.cuda.synchronize()
            for index, (out, ref) in enumerate(zip(got, reference)):
                finite = int((torch.isfinite(out) != torch.isfinite(ref)).sum())
                nan = int((torch.isnan(out) != torch.isnan(ref)).sum())
                there = f"; at {list(at)}: {out[at].flatten()[:8].tolist()} (reference " \
                        f"{ref[at].flatten()[:8].tolist()})" if at else ""
                print(f"repeat {repeat} output {index}: finiteness differs at {finite}, NaN-ness at {nan}{there}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
