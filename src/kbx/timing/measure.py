"""One timing measurement of one callable, by the per-sample protocol of DESIGN §6.

Per sample: give the inputs new values (optional, `kbx.timing.refresh`), flush L2 (write a buffer twice the L2's
size), wait for the device, record a CUDA start event, call once, record an end event, synchronize the whole
device, read the elapsed time. The host time from the start event to the end of the synchronize is kept too: work
the candidate hid from the events (a side stream) shows there and not in the device interval. Calls rotate among
several pre-made input sets so no call sees the pointers of the call before it. A first call (compilation,
autotuning) and a warm-up by time come first; then samples are taken until the CI of the median is within
±`target_rel_ci` of the median, or the budget or the sample cap runs out.

The clock and the flusher are injectable (`Clock`, `Flusher`), so the loop runs on the CPU under a fake timer
in tests; the CUDA ones are `CudaClock` and `L2Flusher`. This module is usable in the trusted worker (baselines)
and in the candidate worker (the candidate); there, build the clock and flusher before importing the candidate:
they bind the torch and time functions they use when they are built, so a later monkey-patch does not reach them.
"""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from kbx.timing._tensors import iter_tensors
from kbx.timing.stats import Summary, median_ci_ranks, quantile, relative_half_width, summarize_sorted

DEFAULT_L2_BYTES = 128 << 20
"""L2 size assumed when torch does not report one: larger than any NVIDIA GPU's L2 today (H100/H200 50 MB)."""

WARMUP_S = 0.1
BUDGET_S = 1.0
MIN_SAMPLES = 20
MAX_SAMPLES = 5000
TARGET_REL_CI = 0.01


class Clock(Protocol):
    """Host time for warm-up and budget, and a device interval around one call."""

    def now(self) -> float:
        """Host monotonic time in seconds."""
        ...

    def start(self) -> None:
        """Wait until the device is idle, then mark the start of a timed call on it."""
        ...

    def stop(self) -> float:
        """Mark its end, wait for the whole device, return milliseconds between the two marks."""
        ...


class Flusher(Protocol):
    """Evicts the inputs of the previous call from caches before a sample."""

    nbytes: int
    """Bytes written per flush (0 when nothing is flushed)."""

    def flush(self) -> None: ...


class CudaClock:
    """CUDA events on the current stream of `device`, closed by a device-wide synchronize."""

    def __init__(self, device: Any = None) -> None:
        import torch

        self.device = torch.device("cuda", torch.cuda.current_device()) if device is None else torch.device(device)
        # Bound once, here: code that runs later in this process cannot swap what the timing loop calls.
        self._record = torch.cuda.Event.record
        self._elapsed = torch.cuda.Event.elapsed_time
        self._synchronize = torch.cuda.synchronize
        self._current_stream = torch.cuda.current_stream
        self._perf_counter = time.perf_counter
        self._start = torch.cuda.Event(enable_timing=True)
        self._end = torch.cuda.Event(enable_timing=True)

    def now(self) -> float:
        return self._perf_counter()

    def start(self) -> None:
        # Wait for the flush (and any refresh) first: the host interval then starts with an idle device, so it
        # differs from the device interval only by launch and synchronisation overhead (see `hidden_work`).
        self._synchronize(self.device)
        self._record(self._start, self._current_stream(self.device))

    def stop(self) -> float:
        self._record(self._end, self._current_stream(self.device))
        self._synchronize(self.device)
        return float(self._elapsed(self._start, self._end))


class L2Flusher:
    """Zeroes a buffer of `factor` times the device's L2 size before each sample."""

    def __init__(self, device: Any = None, *, factor: int = 2) -> None:
        import torch

        self.device = torch.device("cuda", torch.cuda.current_device()) if device is None else torch.device(device)
        props = torch.cuda.get_device_properties(self.device)
        reported = int(getattr(props, "L2_cache_size", 0) or 0)
        self.l2_bytes = reported if reported > 0 else DEFAULT_L2_BYTES
        """The L2 size the buffer is sized from."""
        self.l2_source = "device" if reported > 0 else "default"
        """Where `l2_bytes` came from: the device properties, or DEFAULT_L2_BYTES."""
        self.nbytes = factor * self.l2_bytes
        self._buffer = torch.empty(self.nbytes, dtype=torch.uint8, device=self.device)
        self._zero = torch.Tensor.zero_

    def flush(self) -> None:
        self._zero(self._buffer)


class NoFlush:
    """A flusher that does nothing: for tests and for deliberately warm-cache measurements."""

    nbytes = 0

    def flush(self) -> None:
        return None


@dataclass(frozen=True)
class Measurement:
    """Everything one `time_call` saw: raw samples, their summary, and how they were taken."""

    samples_ms: tuple[float, ...]
    """Device time of each timed call (CUDA events), in call order."""
    host_ms: tuple[float, ...]
    """Host time of each timed call, launch to the end of the device-wide synchronize; >= the device time."""
    summary: Summary
    """Median, quartiles and CI of `samples_ms`."""
    converged: bool
    """Whether the CI of the median reached ±target_rel_ci before the budget or the sample cap."""
    stop_reason: str
    """`converged`, `budget` or `max_samples`."""
    warmup_calls: int
    """Calls before the first sample, the first (compiling) call included."""
    warmup_s: float
    """Host seconds those calls took."""
    wall_s: float
    """Host seconds for the whole measurement."""
    method: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """The protocol's settings: warm-up, budget, target, sample bounds, input sets, flush bytes."""

    def to_json(self) -> dict[str, Any]:
        return {
            "samples_ms": list(self.samples_ms),
            "host_ms": list(self.host_ms),
            "summary": self.summary.to_json(),
            "converged": self.converged,
            "stop_reason": self.stop_reason,
            "warmup_calls": self.warmup_calls,
            "warmup_s": self.warmup_s,
            "wall_s": self.wall_s,
            "method": dict(self.method),
        }


def check_rotation(input_sets: Sequence[Mapping[str, Any]]) -> None:
    """Raise ValueError unless there are >= 2 input sets and neighbours in the rotation share no tensor pointer."""
    if len(input_sets) < 2:
        raise ValueError(f"{len(input_sets)} input set(s): at least 2 are needed so no call reuses the last pointers")
    pointers = [{t.data_ptr() for t in iter_tensors(s) if t.numel() > 0} for s in input_sets]
    for i, current in enumerate(pointers):
        j = (i + 1) % len(pointers)
        if current & pointers[j]:
            raise ValueError(f"input sets {i} and {j} follow each other in the rotation but share tensor memory")


def time_call(
    fn: Callable[..., Any],
    input_sets: Sequence[Mapping[str, Any]],
    *,
    warmup_s: float = WARMUP_S,
    budget_s: float = BUDGET_S,
    target_rel_ci: float = TARGET_REL_CI,
    min_samples: int = MIN_SAMPLES,
    max_samples: int = MAX_SAMPLES,
    confidence: float = 0.95,
    flusher: Flusher | None = None,
    clock: Clock | None = None,
    refresh: Callable[[Mapping[str, Any]], None] | None = None,
) -> Measurement:
    """Time `fn(**inputs)` by the per-sample protocol until its median is known to ±`target_rel_ci`.

    Exceptions raised by `fn` propagate: the caller decides what a failing call means.

    Args:
        fn: The callable to time; its return value is dropped after each call.
        input_sets: At least two pre-made keyword-argument sets, used in turn (see `check_rotation`).
        warmup_s: Host seconds of untimed calls after the first call (which may compile) returns.
        budget_s: Host seconds for the sampling phase; checked before each sample, and one sample is always
            taken, so a call slower than the budget still yields one sample.
        target_rel_ci: Stop once the `confidence` CI of the median lies within ±this fraction of the median.
        min_samples: Samples taken before the stop rule is consulted.
        max_samples: Hard cap on samples.
        confidence: Nominal coverage of the CI of the median.
        flusher: Cache flusher; by default an `L2Flusher` on the current CUDA device (pass a long-lived one to
            avoid allocating a buffer per call, or `NoFlush()` to time warm caches).
        clock: Timer; by default a `CudaClock` on the current CUDA device.
        refresh: Called with each call's inputs before the flush, outside the timed interval, to give them new
            values (`kbx.timing.refresh.ValueRefresher`); None keeps the sets' values.
    """
    _check_settings(warmup_s, budget_s, target_rel_ci, min_samples, max_samples)
    check_rotation(input_sets)
    clock, flusher = CudaClock() if clock is None else clock, L2Flusher() if flusher is None else flusher
    sample = _Sampler(fn, input_sets, clock, flusher, refresh)
    begin = clock.now()
    sample()  # the first call may compile: the warm-up starts after it
    warm_begin = clock.now()
    while clock.now() - warm_begin < warmup_s:
        sample()
    warmup_calls = sample.calls
    sampling_begin = clock.now()
    samples, host, ordered, stop_reason = _sample_until(
        sample, lambda: clock.now() - sampling_begin >= budget_s, target_rel_ci, min_samples, max_samples, confidence
    )
    end = clock.now()
    method = {
        "protocol": "l2-flush + cuda events around one call + device sync; rotated inputs"
        + (", values refreshed per call" if refresh is not None else "") + "; adaptive median CI",
        "warmup_s": warmup_s, "budget_s": budget_s, "target_rel_ci": target_rel_ci, "confidence": confidence,
        "min_samples": min_samples, "max_samples": max_samples, "input_sets": len(input_sets),
        "flush_bytes": int(getattr(flusher, "nbytes", 0))}
    return Measurement(
        samples_ms=tuple(samples), host_ms=tuple(host), summary=summarize_sorted(ordered, confidence),
        converged=stop_reason == "converged", stop_reason=stop_reason, warmup_calls=warmup_calls,
        warmup_s=sampling_begin - begin, wall_s=end - begin, method=MappingProxyType(method),
    )


class _Sampler:
    """One timed call per `__call__`, on the next input set in turn: refresh its values, flush the cache, then the
    device interval (the clock's events) and the host interval (start event to the end of the device's sync)."""

    def __init__(self, fn: Callable[..., Any], input_sets: Sequence[Mapping[str, Any]], clock: Clock,
                 flusher: Flusher, refresh: Callable[[Mapping[str, Any]], None] | None) -> None:
        self.fn, self.input_sets, self.clock, self.flusher, self.refresh = fn, input_sets, clock, flusher, refresh
        self.calls = 0

    def __call__(self) -> tuple[float, float]:
        inputs = self.input_sets[self.calls % len(self.input_sets)]
        self.calls += 1
        if self.refresh is not None:
            self.refresh(inputs)
        self.flusher.flush()
        self.clock.start()
        t0 = self.clock.now()
        self.fn(**inputs)
        device_ms = self.clock.stop()
        return device_ms, (self.clock.now() - t0) * 1e3


def _sample_until(
    sample: _Sampler, over_budget: Callable[[], bool], target_rel_ci: float, min_samples: int, max_samples: int,
    confidence: float,
) -> tuple[list[float], list[float], list[float], str]:
    """Samples until the median's CI is narrow enough, the budget is spent (checked before each sample, after the
    first) or `max_samples` are taken: (device ms, host ms, device ms sorted, why it stopped)."""
    samples: list[float] = []
    host: list[float] = []
    ordered: list[float] = []
    while True:
        if len(samples) >= max_samples:
            return samples, host, ordered, "max_samples"
        if samples and over_budget():
            return samples, host, ordered, "budget"
        device_ms, host_ms = sample()
        samples.append(device_ms)
        host.append(host_ms)
        bisect.insort(ordered, device_ms)
        if len(ordered) >= min_samples and _rel_ci(ordered, confidence) <= target_rel_ci:
            return samples, host, ordered, "converged"


def _check_settings(warmup_s: float, budget_s: float, target_rel_ci: float, min_samples: int, max_samples: int) -> None:
    if warmup_s < 0 or budget_s <= 0 or target_rel_ci <= 0:
        raise ValueError("warmup_s must be >= 0, budget_s and target_rel_ci > 0")
    if not 1 <= min_samples <= max_samples:
        raise ValueError(f"need 1 <= min_samples ({min_samples}) <= max_samples ({max_samples})")


def _rel_ci(ordered: list[float], confidence: float) -> float:
    """Relative half-width of the median's CI for sorted samples, in O(sqrt n) (ranks are cached per n)."""
    ranks = median_ci_ranks(len(ordered), confidence)
    if ranks is None:
        return math.inf
    return relative_half_width(quantile(ordered, 0.5), ordered[ranks[0] - 1], ordered[ranks[1] - 1])
