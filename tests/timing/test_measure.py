import random

import pytest
import torch

from kbx.timing.measure import NoFlush, check_rotation, time_call


class FakeClock:
    """Host and device time both advance only when the timed function says so."""

    def __init__(self):
        self.t = 0.0
        self._started = None

    def advance(self, seconds):
        self.t += seconds

    def now(self):
        return self.t

    def start(self):
        self._started = self.t

    def stop(self):
        return (self.t - self._started) * 1e3


class CountingFlusher:
    nbytes = 123

    def __init__(self, clock):
        self.clock = clock
        self.flushes = []

    def flush(self):
        self.flushes.append(self.clock.t)


def sets(k=3):
    return [{"x": torch.full((4,), float(i)), "tag": i} for i in range(k)]


def op(clock, draw, calls=None):
    """A fake kernel taking draw() seconds; records which input set each call received."""

    def fn(x, tag):
        if calls is not None:
            calls.append(tag)
        clock.advance(draw())

    return fn


def test_low_noise_converges_after_min_samples():
    clock = FakeClock()
    rng = random.Random(0)
    m = time_call(
        op(clock, lambda: 1e-3 * (1 + 0.002 * rng.random())),
        sets(),
        warmup_s=0.0,
        min_samples=20,
        flusher=NoFlush(),
        clock=clock,
    )
    assert m.converged and m.stop_reason == "converged"
    assert m.summary.n == len(m.samples_ms) == 20
    assert m.summary.rel_ci_half_width <= 0.01
    assert m.summary.median == pytest.approx(1.0, rel=0.01)


def test_moderate_noise_keeps_sampling_until_the_ci_is_tight():
    clock = FakeClock()
    rng = random.Random(1)
    m = time_call(
        op(clock, lambda: 1e-3 * rng.lognormvariate(0.0, 0.1)),
        sets(),
        warmup_s=0.0,
        budget_s=100.0,
        min_samples=10,
        max_samples=100_000,
        flusher=NoFlush(),
        clock=clock,
    )
    assert m.converged
    assert m.summary.n > 100  # ±1 % of a 10 %-spread median needs a few hundred samples
    assert m.summary.rel_ci_half_width <= 0.01


def test_budget_ends_a_noisy_measurement():
    clock = FakeClock()
    rng = random.Random(2)
    m = time_call(
        op(clock, lambda: 1e-3 * rng.choice([1.0, 3.0])),
        sets(),
        warmup_s=0.0,
        budget_s=0.05,
        flusher=NoFlush(),
        clock=clock,
    )
    assert not m.converged and m.stop_reason == "budget"
    # Checked before each sample: the overshoot is at most one sample (3 ms here).
    assert 0.05 <= sum(m.samples_ms) / 1e3 <= 0.05 + 3e-3 + 1e-12


def test_max_samples_caps_a_measurement():
    clock = FakeClock()
    rng = random.Random(3)
    m = time_call(
        op(clock, lambda: 1e-3 * rng.choice([1.0, 3.0])),
        sets(),
        warmup_s=0.0,
        budget_s=1e9,
        min_samples=5,
        max_samples=40,
        flusher=NoFlush(),
        clock=clock,
    )
    assert m.stop_reason == "max_samples" and m.summary.n == 40


def test_a_call_slower_than_the_budget_still_gives_one_sample():
    clock = FakeClock()
    m = time_call(op(clock, lambda: 2.0), sets(), warmup_s=0.0, budget_s=1.0, flusher=NoFlush(), clock=clock)
    assert m.summary.n == 1 and m.stop_reason == "budget"


def test_warm_up_runs_by_time_after_the_first_call():
    clock = FakeClock()
    durations = iter([4.0] + [1 / 64] * 10_000)  # the first call compiles for 4 s; binary-exact durations
    m = time_call(
        op(clock, lambda: next(durations)),
        sets(),
        warmup_s=0.125,
        min_samples=20,
        flusher=NoFlush(),
        clock=clock,
    )
    # 1 compiling call, then 8 calls of 1/64 s fill the 0.125 s warm-up, which starts after the first call.
    assert m.warmup_calls == 9
    assert m.warmup_s == pytest.approx(4.125)
    assert all(s == pytest.approx(1000 / 64) for s in m.samples_ms)


def test_calls_rotate_through_the_input_sets():
    clock = FakeClock()
    calls = []
    m = time_call(
        op(clock, lambda: 1e-3, calls),
        sets(3),
        warmup_s=0.005,
        min_samples=20,
        flusher=NoFlush(),
        clock=clock,
    )
    assert calls == [i % 3 for i in range(len(calls))]
    assert len(calls) == m.warmup_calls + m.summary.n
    assert all(a != b for a, b in zip(calls, calls[1:]))


def test_every_call_is_preceded_by_a_flush_and_the_flush_is_not_timed():
    clock = FakeClock()

    class SlowFlusher(CountingFlusher):
        def flush(self):
            super().flush()
            clock.advance(1.0)  # a flush slower than the call must not show up in the samples

    flusher = SlowFlusher(clock)
    m = time_call(op(clock, lambda: 1e-3), sets(), warmup_s=0.0, budget_s=1e9, flusher=flusher, clock=clock)
    assert len(flusher.flushes) == m.warmup_calls + m.summary.n
    assert m.summary.median == pytest.approx(1.0)
    assert all(h == pytest.approx(1.0) for h in m.host_ms)
    assert m.method["flush_bytes"] == 123


def test_measurement_json_has_raw_samples_and_method():
    clock = FakeClock()
    m = time_call(op(clock, lambda: 1e-3), sets(), warmup_s=0.0, flusher=NoFlush(), clock=clock)
    data = m.to_json()
    assert data["samples_ms"] == list(m.samples_ms)
    assert data["summary"]["n"] == m.summary.n
    assert data["method"]["input_sets"] == 3 and data["method"]["target_rel_ci"] == 0.01


def test_one_input_set_is_refused():
    with pytest.raises(ValueError, match="at least 2"):
        check_rotation(sets(1))


def test_neighbouring_sets_sharing_a_tensor_are_refused():
    shared = torch.ones(4)
    with pytest.raises(ValueError, match="share tensor memory"):
        check_rotation([{"x": shared}, {"x": torch.ones(4)}, {"x": shared}])  # set 2 is followed by set 0


def test_views_at_different_addresses_of_one_buffer_rotate_fine():
    buffer = torch.zeros(8)
    check_rotation([{"x": buffer[:4]}, {"x": buffer[4:]}])


def test_bad_sample_bounds_are_refused():
    clock = FakeClock()
    with pytest.raises(ValueError):
        time_call(op(clock, lambda: 1e-3), sets(), min_samples=10, max_samples=5, flusher=NoFlush(), clock=clock)
