"""Triton's autotuner during correctness cases: every configuration still compiles and runs, but is timed over a
few calls instead of Triton's default 25 ms of warm-up and 100 ms of repeats.

A correctness case only needs *a* configuration's output, and every shape of a check workload is a new autotuning
key: with the default benchmarker the suite's matmul spent 8–13 s per check shape tuning (H200, triton 3.6,
2026-11-27), with this one 0.06 s. The choice made for a check shape is never timed. Bench cases of an evaluation
that goes on to the performance stage tune in full, since the configuration chosen there is the one timed (and the
stage re-checks its outputs).

This lives in the candidate's process and the candidate can undo it; that only costs it time.
"""

from __future__ import annotations

from typing import Any

QUICK_WARMUP_MS = 1
QUICK_REPEAT_MS = 3


class Tuning:
    """Switches the benchmarker Triton's autotuner asks its active driver for between quick and Triton's own."""

    def __init__(self) -> None:
        import triton
        import triton.testing

        driver = triton.runtime.driver.active
        self._own = driver.get_benchmarker
        self.quick = True
        bench = triton.testing.do_bench

        def quick(fn: Any, quantiles: Any = None, **_: Any) -> Any:
            return bench(fn, warmup=QUICK_WARMUP_MS, rep=QUICK_REPEAT_MS, quantiles=quantiles)

        driver.get_benchmarker = lambda: quick if self.quick else self._own()
