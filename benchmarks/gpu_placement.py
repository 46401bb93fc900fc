"""Does where a kernel's tensors land in GPU memory move its timing? (issue 3: the A/A noise through the pipeline)

    PYTHONPATH=src python3 benchmarks/gpu_placement.py [--json PATH] [--placements 6] [--passes 4] [--budget-s 0.3]

Through the pipeline, an A/A ratio (one solution timed in two evaluations) moved by several percent although one
process alternating two measurements of one kernel on the same tensors agreed to 0.2 %. The hypothesis: each
evaluation's tensors land elsewhere in memory, and placement changes the speed. This measures it in one process:

- per op, `--placements` placements, each a pair of input sets allocated fresh after a spacer of random size
  (kept alive, so later pairs land at other addresses);
- `--passes` passes; in each, every placement is timed once by `kbx.timing.measure.time_call` (the pipeline's
  protocol: L2 flush, events, rotation within the pair, adaptive median CI);
- *within*: for each placement, the spread (max/min - 1) of its medians over the passes — time alone;
- *between*: the spread of the placements' mean medians — placement, with time averaged out;
- *pair ratios*: |median(A)/median(B) - 1| for every two placements timed back to back in one pass: what an A/A
  between two evaluations with different placements would see.

If *between* is well above *within*, placement explains the pipeline's A/A noise. Output: a table, and --json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import torch

from kbx.timing.measure import CudaClock, L2Flusher, time_call

OPS: dict[str, tuple[Callable[..., Any], Callable[[], dict[str, torch.Tensor]]]] = {
    "add_fp32_64M": (lambda a, b: torch.add(a, b),
                     lambda: {"a": torch.randn(1 << 26, device="cuda"), "b": torch.randn(1 << 26, device="cuda")}),
    "relu_fp16_256M": (lambda x: torch.relu(x),
                       lambda: {"x": torch.randn(1 << 28, device="cuda", dtype=torch.float16)}),
    "sum_rows_fp32": (lambda x: x.sum(dim=1),
                      lambda: {"x": torch.randn(16384, 8192, device="cuda")}),
    "matmul_bf16_4096": (lambda a, b: a @ b,
                         lambda: {"a": torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16),
                                  "b": torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)}),
}


def spread(values: list[float]) -> float:
    return max(values) / min(values) - 1


def quantile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def measure_op(name: str, placements: int, passes: int, budget_s: float, rng: random.Random) -> dict[str, Any]:
    fn, make = OPS[name]
    clock, flusher = CudaClock(), L2Flusher()
    spacers, pairs = [], []
    for _ in range(placements):
        spacers.append(torch.empty(rng.randrange(1, 512) << 20, dtype=torch.uint8, device="cuda"))
        pairs.append([make(), make()])
    medians = [[0.0] * passes for _ in range(placements)]
    pair_ratios: list[float] = []
    for p in range(passes):
        order = list(range(placements))
        rng.shuffle(order)
        for k in order:
            m = time_call(fn, pairs[k], clock=clock, flusher=flusher, warmup_s=0.05, budget_s=budget_s)
            medians[k][p] = m.summary.median
        for a, b in zip(order, order[1:]):
            pair_ratios.append(abs(medians[a][p] / medians[b][p] - 1))
    means = [statistics.fmean(row) for row in medians]
    del spacers, pairs
    torch.cuda.empty_cache()
    return {
        "medians_ms": medians,
        "within_p50": statistics.median(spread(row) for row in medians),
        "within_max": max(spread(row) for row in medians),
        "between": spread(means),
        "pair_p50": statistics.median(pair_ratios),
        "pair_p95": quantile(pair_ratios, 0.95),
        "pair_max": max(pair_ratios),
        "mean_ms": statistics.fmean(means),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json")
    parser.add_argument("--placements", type=int, default=6)
    parser.add_argument("--passes", type=int, default=4)
    parser.add_argument("--budget-s", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    props = torch.cuda.get_device_properties(0)
    report: dict[str, Any] = {
        "device": props.name, "torch": torch.__version__, "date": time.strftime("%Y-%m-%d"),
        "placements": args.placements, "passes": args.passes, "budget_s": args.budget_s, "ops": {},
    }
    print(f"{props.name}, torch {torch.__version__}: {args.placements} placements x {args.passes} passes")
    print(f"{'op':18s} {'ms':>8s} {'within p50':>11s} {'within max':>11s} {'between':>8s} "
          f"{'A/A p50':>8s} {'A/A p95':>8s} {'A/A max':>8s}")
    for name in OPS:
        row = measure_op(name, args.placements, args.passes, args.budget_s, rng)
        report["ops"][name] = row
        print(f"{name:18s} {row['mean_ms']:8.4f} {row['within_p50']:11.2%} {row['within_max']:11.2%} "
              f"{row['between']:8.2%} {row['pair_p50']:8.2%} {row['pair_p95']:8.2%} {row['pair_max']:8.2%}",
              flush=True)
    report["wall_s"] = time.perf_counter() - start
    print(f"wall {report['wall_s']:.1f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
