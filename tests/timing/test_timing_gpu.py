"""The timing building blocks on a real GPU (skipped without CUDA)."""

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
    sets = [
        {"a": torch.randn(2048, 2048, device="cuda"), "b": torch.randn(2048, 2048, device="cuda")} for _ in range(2)
    ]
    m = time_call(torch.matmul, sets, warmup_s=0.05, budget_s=2.0, flusher=L2Flusher(), clock=CudaClock())
    assert m.converged, m.summary
    assert all(h >= d * 0.99 for h, d in zip(m.host_ms, m.samples_ms))  # the host waits for the device


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
