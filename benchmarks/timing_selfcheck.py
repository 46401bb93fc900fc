"""Self-check of the timing building blocks (kbx.timing) on one GPU; about a minute on an H100.

    PYTHONPATH=src python3 benchmarks/timing_selfcheck.py [--json PATH] [--budget-s 1.0]

Sections (each runs even if an earlier one failed; errors are printed, not raised):
  1. environment and clocks;
  2. measured peaks (copy bandwidth, cuBLAS matmul FLOP/s per dtype);
  3. repeatability: a 4096² bf16 matmul, a 4K-element and a 64M-element fp32 add, each timed ten times by
     `time_call`; the spread of the ten medians (max/min - 1), each run's CI half-width and sample count,
     and the speed-of-light fraction of the median;
  4. A/A: each op timed twice, alternately, for 5 rounds; the ratio of the two medians per round;
  5. clocks again, and the total wall time.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

START = time.perf_counter()
DEADLINE_S = 150.0
"""Sections stop starting new measurements past this point, so the script ends well inside 3 minutes."""
REPEATS = 10
AA_ROUNDS = 5
INPUT_SETS = 3

results: dict[str, Any] = {}


def elapsed() -> float:
    return time.perf_counter() - START


def section(name: str, body: Callable[[], Any]) -> None:
    print(f"\n== {name} ({elapsed():.1f} s) ==", flush=True)
    try:
        results[name] = body()
    except Exception:  # a blind run: report and go on to the next section
        traceback.print_exc(file=sys.stdout)
        results[name] = {"error": traceback.format_exc(limit=3)}
    sys.stdout.flush()


def environment() -> dict[str, Any]:
    import torch
    import triton

    from kbx.timing.clocks import read_device_clocks
    from kbx.timing.measure import L2Flusher

    props = torch.cuda.get_device_properties(0)
    clocks = read_device_clocks(0).to_json()
    flusher = L2Flusher()
    info = {
        "gpu": props.name,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "cuda": torch.version.cuda,
        "l2_bytes": flusher.l2_bytes,
        "l2_source": flusher.l2_source,
        "flush_bytes": flusher.nbytes,
        "clocks_start": clocks,
    }
    for key, value in info.items():
        print(f"{key:>13}: {value}")
    return info


def peaks() -> dict[str, Any]:
    from kbx.timing.peaks import device_fingerprint, measure_peaks

    begin = time.perf_counter()
    measured = measure_peaks(0)
    print(f"fingerprint: {device_fingerprint(0)}")
    print(f"bandwidth: {measured.bandwidth / 1e12:.3f} TB/s (read + write)")
    for key, rate in measured.flops.items():
        print(f"{key:>9}: {rate / 1e12:8.1f} TFLOP/s")
    print(f"measured in {time.perf_counter() - begin:.1f} s")
    results["_peaks"] = measured
    report = measured.to_json()
    try:
        read = read_only_bandwidth()
        print(f"read-only (x.sum() over 1 GiB): {read / 1e12:.3f} TB/s = {read / measured.bandwidth:.3f} x copy")
        report["read_only_bandwidth"] = read
    except Exception as exc:  # informative only
        print(f"(read-only probe failed: {type(exc).__name__}: {exc})")
    return report


def read_only_bandwidth() -> float:
    """Bytes per second read by a 1 GiB fp32 sum: how far a read-only kernel can beat the copy's rate."""
    import torch

    x = torch.ones(1 << 28, dtype=torch.float32, device="cuda")
    best = math.inf
    for _ in range(10):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        x.sum()
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3)
    return x.numel() * x.element_size() / best


def make_ops() -> dict[str, tuple[Callable[..., Any], list[dict[str, Any]], str]]:
    import torch

    def matmul_sets() -> list[dict[str, Any]]:
        make = lambda: torch.randn(4096, 4096, dtype=torch.bfloat16, device="cuda")
        return [{"input": make(), "other": make()} for _ in range(INPUT_SETS)]

    def add_sets(n: int) -> list[dict[str, Any]]:
        make = lambda: torch.randn(n, dtype=torch.float32, device="cuda")
        return [{"input": make(), "other": make()} for _ in range(INPUT_SETS)]

    return {
        "matmul 4096^2 bf16": (torch.matmul, matmul_sets(), "bfloat16"),
        "add 4K fp32": (torch.add, add_sets(4096), "float32"),
        "add 64M fp32": (torch.add, add_sets(64 << 20), "float32"),
    }


def sol_of(fn: Callable[..., Any], inputs: dict[str, Any], dtype: str) -> float | None:
    from kbx.timing.sol import count_flops, minimum_bytes, sol_time_s

    peaks = results.get("_peaks")
    if peaks is None:
        return None
    outputs = fn(**inputs)
    return sol_time_s(count_flops(fn, inputs), minimum_bytes(inputs, outputs), peaks, dtype)


def repeatability(budget_s: float) -> dict[str, Any]:
    from kbx.timing.measure import CudaClock, L2Flusher, time_call

    flusher, clock = L2Flusher(), CudaClock()
    report: dict[str, Any] = {}
    header = f"{'op':<20} {'run':>3} {'median us':>11} {'ci +-%':>7} {'n':>6} {'stop':>11} {'host/dev':>8} {'sol':>6}"
    for name, (fn, sets, dtype) in make_ops().items():
        print(header)
        try:
            sol_s = sol_of(fn, sets[0], dtype)
        except Exception as exc:  # the SOL column is optional; the timing still runs
            print(f"(speed of light failed: {type(exc).__name__}: {exc})")
            sol_s = None
        runs = []
        for run in range(REPEATS):
            if elapsed() > DEADLINE_S:
                print(f"{name:<20} stopped: past the {DEADLINE_S:.0f} s deadline")
                break
            m = time_call(fn, sets, budget_s=budget_s, flusher=flusher, clock=clock)
            s = m.summary
            host_ratio = sorted(m.host_ms)[len(m.host_ms) // 2] / s.median
            sol = f"{sol_s / (s.median / 1e3):.3f}" if sol_s else "-"
            print(
                f"{name:<20} {run:>3} {s.median * 1e3:>11.2f} {s.rel_ci_half_width * 100:>7.2f} {s.n:>6} "
                f"{m.stop_reason:>11} {host_ratio:>8.2f} {sol:>6}",
                flush=True,
            )
            runs.append(m.to_json())
        medians = [r["summary"]["median"] for r in runs]
        spread = max(medians) / min(medians) - 1 if medians else math.nan
        print(f"{name:<20} spread of {len(medians)} medians (max/min - 1): {spread * 100:.2f} %\n")
        report[name] = {"runs": runs, "spread": spread, "sol_s": sol_s}
    return report


def aa(budget_s: float) -> dict[str, Any]:
    from kbx.timing.measure import CudaClock, L2Flusher, time_call
    from kbx.timing.stats import geometric_mean

    flusher, clock = L2Flusher(), CudaClock()
    report: dict[str, Any] = {}
    print(f"{'op':<20} {'A/B ratio per round':<52} {'geomean':>8} {'max |r-1| %':>12}")
    for name, (fn, sets, _) in make_ops().items():
        ratios = []
        for _ in range(AA_ROUNDS):
            if elapsed() > DEADLINE_S:
                break
            a = time_call(fn, sets, budget_s=budget_s, flusher=flusher, clock=clock)
            b = time_call(fn, sets, budget_s=budget_s, flusher=flusher, clock=clock)
            ratios.append(a.summary.median / b.summary.median)
        if not ratios:
            print(f"{name:<20} stopped: past the {DEADLINE_S:.0f} s deadline")
            continue
        worst = max(abs(r - 1) for r in ratios)
        shown = " ".join(f"{r:.4f}" for r in ratios)
        print(f"{name:<20} {shown:<52} {geometric_mean(ratios):>8.4f} {worst * 100:>12.2f}", flush=True)
        report[name] = {"ratios": ratios, "max_deviation": worst}
    return report


def closing() -> dict[str, Any]:
    from kbx.timing.clocks import read_device_clocks

    clocks = read_device_clocks(0).to_json()
    print(f"clocks_end: {clocks}")
    return {"clocks_end": clocks}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write every result, raw samples included, to this file")
    parser.add_argument("--budget-s", type=float, default=1.0, help="sampling budget per time_call")
    args = parser.parse_args()

    import torch

    if not torch.cuda.is_available():
        print("no CUDA device: nothing to check")
        return 1
    section("environment", environment)
    section("peaks", peaks)
    section("repeatability", lambda: repeatability(args.budget_s))
    section("A/A", lambda: aa(args.budget_s))
    section("end", closing)
    results.pop("_peaks", None)
    results["wall_s"] = elapsed()
    print(f"\ntotal wall time: {elapsed():.1f} s")
    if args.json:
        with open(args.json, "w") as sink:
            json.dump(results, sink, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
