"""libdevice under the CPU interpreter: kernels that call it run as they compile on a GPU, within float32 rounding
(before, every call failed: an extern function the interpreter refuses, or an empty stub returning None)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import kbx
from kbx.evaluation.candidate.libdevice import FUNCTIONS, base_name, exact_function, flushed
from tests.conftest import FIXTURES

SRC = os.path.dirname(os.path.dirname(kbx.__file__))


def test_kernels_calling_either_libdevice_module_compute_what_torch_does():
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    script = FIXTURES / "interpreter" / "libdevice_kernels.py"
    done = subprocess.run([sys.executable, str(script), SRC], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    errors = json.loads(done.stdout.strip().splitlines()[-1])
    keys = {"neutral", "cuda", "classify", "flush", "convert"}
    assert errors.keys() == keys and all(e < 1e-5 for e in errors.values()), errors
    assert errors["flush"] == 0.0 and errors["convert"] == 0.0, errors


@pytest.mark.parametrize(("symbol", "float32", "name"), [
    ("__nv_rintf", True, "rint"), ("__nv_rint", False, "rint"), ("__nv_erff", True, "erf"), ("__nv_erf", False, "erf"),
    ("__nv_fast_expf", True, "exp"), ("__nv_powif", True, "powi"), ("__nv_fdiv_rn", True, "div"),
    ("__nv_dsqrt_rn", False, "sqrt"), ("__nv_frcp_rz", True, "rcp"), ("__nv_fmaf", True, "fma"),
    ("__nv_isinff", True, "isinf"), ("__nv_fdividef", True, "divide"), ("__nv_isnand", False, "isnan"),
    ("__nv_isfinited", False, "isfinite"), ("__nv_normcdff", True, "normcdf"), ("__nv_erfcinvf", True, "erfcinv"),
])
def test_a_symbol_is_known_by_its_base_name(symbol, float32, name):
    assert base_name(symbol, float32) == name and name in FUNCTIONS


def test_float32_subnormals_flush_to_zeros_of_their_sign():
    values = np.array([1e-44, -1e-40, 1.2e-38, -3.0, 0.0, np.inf, np.nan], dtype=np.float32)
    out = flushed(values)
    assert out[:2].tolist() == [0.0, 0.0] and np.signbit(out[1]) and out[2:4].tolist() == values[2:4].tolist()
    assert out[4] == 0.0 and np.isinf(out[5]) and np.isnan(out[6])
    assert flushed(np.array([1, 2])).tolist() == [1, 2]


def test_functions_computed_with_torch_are_not_torch_work(monkeypatch):
    # erf, normcdf, ... are computed with torch: under the worker's dispatch recorder that was tallied as the
    # candidate's torch work, and an honest erf calling libdevice.erf was REJECTED_RUNTIME (2026-11-28).
    import _thread
    import threading

    from kbx.evaluation.candidate.torch_compute import TorchComputeRecorder

    monkeypatch.setattr(threading.Thread, "_bootstrap_inner", threading.Thread._bootstrap_inner)
    monkeypatch.setattr(_thread, "start_new_thread", _thread.start_new_thread)
    recorder = TorchComputeRecorder()
    x = np.linspace(-3.0, 3.0, 4096)
    with recorder.recording():
        values = [FUNCTIONS[name](x) for name in ("erf", "erfc", "normcdf", "erfcx", "lgamma", "j0")]
    assert dict(recorder.tally({}).ops) == {}
    assert abs(values[0][-1] - 0.9999779095030014) < 1e-12


def test_conversions_round_by_their_mode_and_saturate():
    # float2int_rd is CUDA's floor-to-int: a grid_sample kernel using it was RUNTIME_ERROR on the CPU (2026-11-28)
    x = np.array([-1.5, -0.5, 0.5, 1.5, 2.5, 3e9, -3e9, np.nan], dtype=np.float32)
    assert exact_function("__nv_float2int_rd")(x).tolist() == [-2, -1, 0, 1, 2, 2**31 - 1, -2**31, 0]
    assert exact_function("__nv_float2int_rn")(x).tolist()[:5] == [-2, 0, 0, 2, 2]
    assert exact_function("__nv_float2int_rz")(x).tolist()[:5] == [-1, 0, 0, 1, 2]
    assert exact_function("__nv_float2ull_ru")(x).tolist()[2:6] == [1, 2, 3, 3000000000]
    assert exact_function("__nv_float2ll_rd")(np.array([1e30], dtype=np.float32)).tolist() == [2**63 - 1]


def test_int_to_float_conversions_step_towards_their_direction():
    big = np.array([2**24 + 1, -(2**24 + 1), 2**31 - 1], dtype=np.int32)
    assert exact_function("__nv_int2float_rn")(big).tolist() == [2.0**24, -(2.0**24), 2.0**31]
    assert exact_function("__nv_int2float_rz")(big).tolist() == [2.0**24, -(2.0**24), 2.0**31 - 128]
    assert exact_function("__nv_int2float_ru")(big).tolist() == [2.0**24 + 2, -(2.0**24), 2.0**31]
    assert exact_function("__nv_int2float_rd")(big).tolist() == [2.0**24, -(2.0**24) - 2, 2.0**31 - 128]
    wide = np.array([1.0 + 2.0**-30, 1e39, -1e39], dtype=np.float64)
    assert exact_function("__nv_double2float_rd")(wide).tolist() == [1.0, float(np.finfo(np.float32).max), -np.inf]


def test_bitcasts_keep_every_bit():
    x = np.array([1.0, -0.0, 1e-40, np.inf], dtype=np.float32)
    bits = exact_function("__nv_float_as_int")(x)
    assert bits.dtype == np.int32 and bits[0] == 0x3F800000 and bits[1] == -(2**31) and bits[2] != 0
    assert exact_function("__nv_int_as_float")(bits).tobytes() == x.tobytes()
    assert exact_function("__nv_fsqrt_rn") is None and exact_function("__nv_int2uint_rn") is None
