"""The performance stage on a GPU: speedups of the suite's solutions, A/A noise, and GPU-only exploits.

    PYTHONPATH=src python3 benchmarks/gpu_performance.py [--tasks relu softmax ...] [--out DIR] [--exploits ...]

For each task, its solution is evaluated twice through the full pipeline (correctness, then eager / compile /
candidate alternating in rounds). Printed per bench workload: candidate, eager and compile medians, speedups,
SOL fraction, and the A/A ratio of the two evaluations' candidate medians (|ratio - 1| is the noise a speedup
carries). Then p50/p95/max of |A/A - 1| over all workloads, wall time per evaluation split into correctness and
performance, and the status of each exploit file named with --exploits (run on the GPU with timing).
Writes results.jsonl and summary.json to --out. Needs only torch, triton, numpy and the standard library.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from kbx.candidates.source import Candidate
from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.evaluation.result import Evaluation
from kbx.tasks.registry import load_suite, select
from kbx.tasks.suite_check import expected_status

ROOT = Path(__file__).resolve().parent.parent
EXPLOITS = ROOT / "tests" / "exploits"


def fmt(value: float | None, spec: str = ".3f") -> str:
    return "-" if value is None else format(value, spec)


def quantile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def perf_rows(evaluation: Evaluation) -> dict[str, dict]:
    perf = evaluation.performance or {}
    return {f"{w['workload']}/{w['dtype']}": w for w in perf.get("workloads", [])}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", nargs="*", default=["relu", "softmax", "matmul"])
    parser.add_argument("--exploits", nargs="*", default=[])
    parser.add_argument("--out", type=Path, default=Path("gpu-performance"))
    parser.add_argument("--rounds", type=int, default=TimingSettings.rounds)
    parser.add_argument("--budget", type=float, default=TimingSettings.budget_s, help="seconds per measurement")
    args = parser.parse_args()
    settings = TimingSettings(rounds=args.rounds, budget_s=args.budget)
    args.out.mkdir(parents=True, exist_ok=True)
    suite = load_suite()
    by_name = {task.name: task for task in suite}
    sink = (args.out / "results.jsonl").open("w")
    deviations: list[float] = []
    drifts: list[float] = []
    summary: dict = {"tasks": {}, "exploits": {}, "settings": settings.to_json()}
    start = time.monotonic()
    with Evaluator("cuda", Limits(timeout_s=400), timing=settings) as evaluator:
        env = evaluator.environment
        print(f"# {env.get('gpu')} | torch {env['torch']} | triton {env['triton']} | cuda {env.get('cuda')}")
        print(f"{'task/workload':40s} {'cand ms':>9s} {'eager ms':>9s} {'comp ms':>9s} {'x eager':>8s} "
              f"{'x comp':>8s} {'sol':>6s} {'A/A':>7s} {'drift':>7s}", flush=True)
        for task in select(suite, args.tasks, None):
            path = task.path / "solution.py"
            runs = []
            for _ in range(2):
                evaluation = evaluator.evaluate(task, Candidate(str(path), task.name, path.read_text()))
                sink.write(json.dumps(evaluation.to_json()) + "\n")
                sink.flush()
                runs.append(evaluation)
            first, second = (perf_rows(e) for e in runs)
            for key, row in first.items():
                other = second.get(key, {})
                a, b = row["median_ms"].get("candidate"), other.get("median_ms", {}).get("candidate")
                ratio = b / a if a and b else None
                if ratio is not None:
                    deviations.append(abs(ratio - 1))
                # Drift: the second evaluation's speedup over the first's (baselines re-timed alongside each).
                s1, s2 = row["speedup_eager"], other.get("speedup_eager")
                drift = s2 / s1 if s1 and s2 else None
                if drift is not None:
                    drifts.append(abs(drift - 1))
                m = row["median_ms"]
                print(f"{task.name + '/' + key:40s} {fmt(m.get('candidate'), '9.4f')} {fmt(m.get('eager'), '9.4f')} "
                      f"{fmt(m.get('compile'), '9.4f')} {fmt(row['speedup_eager'], '8.3f')} "
                      f"{fmt(row['speedup_compile'], '8.3f')} {fmt(row['sol_fraction'], '6.3f')} "
                      f"{fmt(ratio, '7.4f')} {fmt(drift, '7.4f')}", flush=True)
            for e in runs:
                perf = e.performance or {}
                print(f"  {task.name}: {e.status.value} {e.message[:200]} | wall {e.elapsed_s:.1f}s, performance stage "
                      f"{perf.get('wall_s', 0):.1f}s, lock wait {perf.get('lock_wait_s', 0):.2f}s; "
                      f"x eager {fmt(perf.get('speedup_eager'))}, x compile {fmt(perf.get('speedup_compile'))}, "
                      f"sol {fmt(perf.get('sol_fraction'))}; phases "
                      + " ".join(f"{k} {v:.1f}" for k, v in e.phases.items()), flush=True)
            summary["tasks"][task.name] = [
                {"status": e.status.value, "message": e.message, "elapsed_s": e.elapsed_s,
                 "performance_wall_s": (e.performance or {}).get("wall_s")} for e in runs
            ]
        if deviations:
            summary["aa"] = {"n": len(deviations), "p50": statistics.median(deviations),
                             "p95": quantile(deviations, 0.95), "max": max(deviations)}
            print(f"A/A |ratio-1| over {len(deviations)} workloads: p50 {summary['aa']['p50']:.4f} "
                  f"p95 {summary['aa']['p95']:.4f} max {summary['aa']['max']:.4f}", flush=True)
        if drifts:
            summary["speedup_drift"] = {"n": len(drifts), "p50": statistics.median(drifts),
                                        "p95": quantile(drifts, 0.95), "max": max(drifts)}
            print(f"speedup drift |s2/s1-1| over {len(drifts)} workloads: p50 {statistics.median(drifts):.4f} "
                  f"p95 {quantile(drifts, 0.95):.4f} max {max(drifts):.4f}", flush=True)
        for name in args.exploits:
            path = EXPLOITS / f"{name}.py"
            target = next(line.split('"')[1] for line in path.read_text().splitlines() if line.startswith("TARGET"))
            evaluation = evaluator.evaluate(by_name[target], Candidate(str(path), target, path.read_text()))
            expected = expected_status(path)
            ok = evaluation.status.value == expected
            summary["exploits"][name] = {"status": evaluation.status.value, "expected": expected, "ok": ok,
                                         "message": evaluation.message}
            print(f"exploit {name:32s} {evaluation.status.value:17s} {'ok ' if ok else 'BAD'} "
                  f"{evaluation.message[:160]}", flush=True)
    summary["wall_s"] = time.monotonic() - start
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(f"total {summary['wall_s']:.0f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
