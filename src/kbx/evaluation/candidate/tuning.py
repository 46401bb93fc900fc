"""Triton's autotuner during correctness cases: every configuration still compiles and runs, but is timed over a
few calls (`QUICK_CALLS`, CUDA events, no cache flush) instead of Triton's default 25 ms of warm-up and 100 ms of
repeats, each after a flush of the L2 cache.

A correctness case only needs *a* configuration's output, and every shape of a check workload is a new autotuning
key: with the default benchmarker the suite's matmul spent 8–13 s per check shape tuning (H200, triton 3.6,
2026-11-27), with this one 0.06 s. The choice made for a check shape is never timed. Bench cases of an evaluation
that goes on to the performance stage tune in full, since the configuration chosen there is the one timed (and the
stage re-checks its outputs).

This lives in the candidate's process and the candidate can undo it; that only costs it time.
"""

from __future__ import annotations

from typing import Any

QUICK_CALLS = 3


class Tuning:
    """Switches the benchmarker Triton's autotuner asks its active driver for between quick and Triton's own."""

    def __init__(self) -> None:
        import triton

        driver = triton.runtime.driver.active
        self._own = driver.get_benchmarker
        self.quick = True
        driver.get_benchmarker = lambda: self._bench

    def _bench(self, fn: Any, quantiles: Any = None, **settings: Any) -> Any:
        """Triton's `do_bench` contract: milliseconds, or one figure per quantile asked for."""
        if not self.quick:
            return self._own()(fn, quantiles=quantiles, **settings)
        import torch

        fn()  # the first call compiles
        times = []
        for _ in range(QUICK_CALLS):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        median = sorted(times)[len(times) // 2]
        return [median for _ in quantiles] if quantiles is not None else median
