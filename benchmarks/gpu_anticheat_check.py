"""Anti-cheat on a GPU: no false positives on the suite's solutions, and the exploits get their statuses.

    PYTHONPATH=src python3 benchmarks/gpu_anticheat_check.py [--exploits NAME ...] [--all-exploits] [--out DIR]

1. Every suite solution through the pipeline on the GPU with every runtime layer on (compiled Triton, autotuning,
   launch recording, identity snapshot, audit hook, channel protocol, perturbed and refill cases) on its smoke and
   check workloads; bench sizes and timing are left to gpu_suite_check.py / gpu_performance.py, which take minutes.
2. The named exploit files (default: those marked `DEVICE = "cuda"` plus the ones whose trick targets timing)
   through the full pipeline, performance stage included, compared with their EXPECT and CAUGHT_BY.
Prints one row per candidate; exits 1 on any disagreement. Needs only torch, triton, numpy and the standard library.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from pathlib import Path

from kbx.candidates.source import Candidate
from kbx.evaluation import cases
from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.registry import load_suite
from kbx.tasks.suite_check import expected_status

EXPLOITS = Path(__file__).resolve().parent.parent / "tests" / "exploits"
TIMING_EXPLOITS = ["cache_rotating_inputs", "honest_until_timing", "cache_by_pointer", "memoize_first_call",
                   "arithmetic_fallback", "patch_via_unresolved_target", "forged_case_done", "reads_saved_outputs"]


def declared(path: Path, name: str) -> str | None:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return str(ast.literal_eval(node.value))
    return None


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--exploits", nargs="*", default=TIMING_EXPLOITS)
    parser.add_argument("--all-exploits", action="store_true")
    parser.add_argument("--skip-solutions", action="store_true")
    parser.add_argument("--tasks", nargs="*", default=None, help="solutions of these tasks only (default: all)")
    parser.add_argument("--out", type=Path, default=Path("gpu-anticheat"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    suite = {task.name: task for task in load_suite()}
    sink = (args.out / "results.jsonl").open("w")
    bad = 0
    start = time.monotonic()
    if not args.skip_solutions:
        cases.DEVICE_ROLES["cuda"] = ("smoke", "check")  # this sweep is about the layers, not bench sizes
        with Evaluator("cuda", Limits(timeout_s=300), timing=None) as evaluator:
            env = evaluator.environment
            print(f"# {env.get('gpu')} | torch {env['torch']} | triton {env['triton']} | cuda {env.get('cuda')}")
            for task in suite.values():
                if args.tasks is not None and task.name not in args.tasks:
                    continue
                path = task.path / "solution.py"
                evaluation = evaluator.evaluate(task, Candidate(str(path), task.name, path.read_text()))
                sink.write(json.dumps(evaluation.to_json()) + "\n")
                ok = evaluation.status.value == "PASSED"
                bad += not ok
                print(f"solution {task.name:30s} {evaluation.status.value:17s} {'ok ' if ok else 'BAD'} "
                      f"{len(evaluation.cases):3d} cases {evaluation.elapsed_s:5.1f}s {evaluation.message[:200]}",
                      flush=True)
        cases.DEVICE_ROLES["cuda"] = ("smoke", "check", "bench")
    names = sorted(p.stem for p in EXPLOITS.glob("*.py") if not p.name.startswith(("test_", "__")))
    chosen = names if args.all_exploits else args.exploits
    settings = TimingSettings(rounds=3, budget_s=0.3, min_samples=10)
    with Evaluator("cuda", Limits(timeout_s=300), timing=settings) as evaluator:
        for name in chosen:
            path = EXPLOITS / f"{name}.py"
            target = declared(path, "TARGET") or ""
            evaluation = evaluator.evaluate(suite[target], Candidate(str(path), target, path.read_text()))
            sink.write(json.dumps(evaluation.to_json()) + "\n")
            expected, caught_by = expected_status(path), declared(path, "CAUGHT_BY") or ""
            ok = evaluation.status.value == expected and caught_by in evaluation.message
            bad += not ok
            print(f"exploit  {name:30s} {evaluation.status.value:17s} {'ok ' if ok else 'BAD'} "
                  f"(expected {expected} / {caught_by}) {evaluation.elapsed_s:5.1f}s {evaluation.message[:220]}",
                  flush=True)
    print(f"{'all as expected' if not bad else f'{bad} not as expected'} in {time.monotonic() - start:.0f}s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
