"""The timing building blocks on a real GPU (skipped without CUDA)."""

import time

import pytest
import torch

from kbx.timing.clocks import read_device_clocks
from kbx.timing.measure import CudaClock, L2Flusher, time_call
from kbx.timing.peaks import measure_bandwidth, measure_matmul
from kbx.timing.sol import count_flops, minimum_bytes

pytestmark = pytest.mark.gpu


def test_flusher_writes_twice_the_reported_l2():
    flusher = L2Flusher()
    props = torch.cuda.get_device_properties(0)
    assert flusher.l2_source == "device" and flusher.nbytes == 2 * props.L2_cache_size
    flusher.flush()


def test_time_call_converges_on_a_matmul():
    sets = [{name: torch.randn(2048, 2048, device="cuda") for name in ("input", "other")} for _ in range(2)]
    m = time_call(torch.matmul, sets, warmup_s=0.05, budget_s=2.0, flusher=L2Flusher(), clock=CudaClock())
    assert m.converged, m.summary
    # The host interval starts once the start event is recorded and ends after the synchronize: it contains the
    # device interval, less at most the few microseconds the record call takes.
    assert all(h >= d - 0.01 for h, d in zip(m.host_ms, m.samples_ms)), list(zip(m.host_ms, m.samples_ms))[:5]


def test_clock_resists_a_later_patch_of_elapsed_time(monkeypatch):
    clock = CudaClock()
    monkeypatch.setattr(torch.cuda.Event, "elapsed_time", lambda self, other: 1e-9)
    x = torch.randn(4096, 4096, device="cuda")
    clock.start()
    x @ x
    assert clock.stop() > 1e-3


def test_peaks_are_plausible():
    assert measure_bandwidth(0, nbytes=256 << 20, repeats=3) > 1e11
    assert measure_matmul(0, "bfloat16", size=4096) > 1e13


def test_flops_and_bytes_on_cuda_tensors():
    a = torch.randn(256, 128, device="cuda")
    b = torch.randn(128, 64, device="cuda")
    assert count_flops(torch.matmul, {"input": a, "other": b}) == 2 * 256 * 128 * 64
    assert minimum_bytes({"a": a, "b": b}, torch.matmul(a, b)) == 4 * (256 * 128 + 128 * 64 + 256 * 64)


def test_clocks_are_read_for_the_torch_device():
    clocks = read_device_clocks(0)
    if clocks.error and "not found" in clocks.error:
        pytest.skip("no nvidia-smi on this machine")
    assert clocks.sm_mhz is not None and clocks.name is not None, clocks


def _relu_sets():
    return [{"x": torch.randn(8192, 8192, device="cuda")} for _ in range(2)]


def test_work_on_a_side_stream_shows_on_the_host_and_is_called_hidden():
    from kbx.evaluation.orchestrator.performance import hidden_work

    side = torch.cuda.Stream()

    def on_side_stream(x):
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(20):
                y = torch.relu(x)
        return y

    hidden = time_call(on_side_stream, _relu_sets(), warmup_s=0.05, budget_s=0.3)
    assert hidden.summary.median < 1.0, hidden.summary  # the events saw the launches only (20 relus take ~3 ms)
    assert hidden_work(hidden.to_json()).startswith("the median call took")
    honest = time_call(lambda x: [torch.relu(x) for _ in range(20)][-1], _relu_sets(), warmup_s=0.05, budget_s=0.3)
    assert hidden_work(honest.to_json()) == ""


def test_sleeping_in_python_is_timed_slower_not_faster():
    fast = time_call(torch.relu, _relu_sets(), warmup_s=0.05, budget_s=0.3)

    def sleepy(x):
        time.sleep(0.002)
        return torch.relu(x)

    slow = time_call(sleepy, _relu_sets(), warmup_s=0.05, budget_s=0.3)
    assert slow.summary.median > fast.summary.median + 1.9


def test_refreshed_values_differ_on_every_call_on_the_device():
    from kbx.timing.refresh import ValueRefresher

    seen = []
    sets = [{"x": torch.randn(4096, 4097, device="cuda", dtype=torch.bfloat16).t()} for _ in range(2)]
    time_call(lambda x: seen.append(tuple(x[::1000, 7].tolist())), sets, warmup_s=0.01, budget_s=0.1,
              refresh=ValueRefresher("cuda"))
    assert len(seen) > 10 and len(set(seen)) == len(seen)
