import math

import pytest
import torch

from kbx.timing.sol import TF32, Peaks, count_flops, minimum_bytes, peak_flops, sol_fraction, sol_time_s

PEAKS = Peaks(
    bandwidth=2e12,
    flops={"float32": 50e12, TF32: 400e12, "bfloat16": 800e12, "float16": 790e12},
    device="Fake GPU",
)


def test_count_flops_of_a_matmul_is_2mnk():
    m, k, n = 33, 17, 9
    inputs = {"a": torch.randn(m, k), "b": torch.randn(k, n)}
    assert count_flops(lambda a, b: torch.matmul(a, b), inputs) == 2 * m * n * k


def test_count_flops_of_elementwise_work_is_zero():
    assert count_flops(lambda x: torch.nn.functional.gelu(x) + 1, {"x": torch.randn(100)}) == 0


def test_minimum_bytes_reads_inputs_and_writes_outputs_once():
    x = torch.zeros(100, dtype=torch.float32)
    y = torch.zeros(50, dtype=torch.float16)
    out = torch.zeros(100, dtype=torch.float32)
    assert minimum_bytes({"x": x, "y": y, "alpha": 2.0, "mode": "sum"}, out) == 400 + 100 + 400


def test_minimum_bytes_counts_shared_storage_once():
    x = torch.zeros(10, 10)
    assert minimum_bytes({"a": x, "b": x.t(), "c": x[:5]}, ()) == 400


def test_minimum_bytes_counts_broadcast_views_by_their_memory():
    row = torch.zeros(1, 64)
    assert minimum_bytes({"x": row.expand(1000, 64)}, []) == 256


def test_minimum_bytes_counts_an_in_place_output_as_a_write_too():
    x = torch.zeros(10)
    assert minimum_bytes({"x": x}, (x, None)) == 80


def test_sol_time_is_the_slower_of_compute_and_memory():
    compute_bound = sol_time_s(flops=8e12, nbytes=1e9, peaks=PEAKS, dtype="bfloat16")
    assert compute_bound == pytest.approx(8e12 / 800e12)
    memory_bound = sol_time_s(flops=0, nbytes=4e9, peaks=PEAKS, dtype="bfloat16")
    assert memory_bound == pytest.approx(4e9 / 2e12)


def test_tf32_uses_the_faster_fp32_peak_only_when_allowed():
    assert peak_flops(PEAKS, "float32") == 50e12
    assert peak_flops(PEAKS, "float32", tf32=True) == 400e12


def test_an_unmeasured_dtype_falls_back_to_the_largest_peak():
    assert peak_flops(PEAKS, "int8") == 800e12


def test_sol_fraction():
    assert sol_fraction(1e-3, 2e-3) == 0.5
    assert sol_fraction(1e-3, 0.0) == math.inf


def test_peaks_json_round_trip():
    again = Peaks.loads(PEAKS.dumps())
    assert again.to_json() == PEAKS.to_json()


def test_peaks_reject_non_positive_rates():
    with pytest.raises(ValueError):
        Peaks.from_json({"bandwidth": 0.0, "flops": {}})


def test_the_faster_than_light_bound_uses_the_fastest_rate_known_for_the_device():
    from kbx.timing.sol import HARDWARE_LIMITS, loose_sol_time_s

    # Unknown GPU: the fastest measured peak of any dtype, the measured bandwidth.
    assert loose_sol_time_s(800 * 10**12, 0, PEAKS) == pytest.approx(1.0)
    assert loose_sol_time_s(0, 2 * 10**12, PEAKS) == pytest.approx(1.0)
    # A listed GPU whose measured peaks came out low (clocks not yet up): the datasheet's limits hold instead.
    bandwidth, fastest = HARDWARE_LIMITS["NVIDIA H200"]
    h200 = Peaks(bandwidth=4.2e12, flops={"bfloat16": 680e12, "int8": 127e12}, device="NVIDIA H200")
    assert loose_sol_time_s(10**15, 0, h200) == pytest.approx(1e15 / fastest)
    assert loose_sol_time_s(0, 10**12, h200) == pytest.approx(1e12 / bandwidth)
    # Measured above the datasheet (a misreported clock): the measurement, never a tighter bound.
    fast = Peaks(bandwidth=9e12, flops={"bfloat16": 3000e12}, device="NVIDIA H200")
    assert loose_sol_time_s(3 * 10**15, 9 * 10**12, fast) == pytest.approx(1.0)
