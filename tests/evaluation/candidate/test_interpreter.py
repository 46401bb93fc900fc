"""The interpreter shims make bf16 kernels compute what a GPU computes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kbx.evaluation.candidate.interpreter import bf16_bits_to_f32, f32_to_bf16_bits, gpu_float_to_int
from tests.conftest import FIXTURES

SCRIPT = FIXTURES / "interpreter" / "bf16_kernels.py"


def run_script(*flags: str) -> dict[str, float]:
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    result = subprocess.run([sys.executable, str(SCRIPT), *flags], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_bf16_round_trip_and_ties_to_even():
    values = np.array([1.0, -2.5, 3.140625, np.inf, 0.0], dtype=np.float32)
    assert np.array_equal(bf16_bits_to_f32(f32_to_bf16_bits(values)), values)
    # 1 + 2^-8 lies halfway between two bf16 values: ties go to the even one (1.0).
    assert bf16_bits_to_f32(f32_to_bf16_bits(np.array([1 + 2**-8], dtype=np.float32)))[0] == 1.0
    assert np.isnan(bf16_bits_to_f32(f32_to_bf16_bits(np.array([np.nan], dtype=np.float32))))[0]


@pytest.mark.slow
def test_bf16_kernels_match_torch_with_the_shims():
    errors = run_script("--shim")
    assert errors["dot"] < 1e-2 and errors["axpy"] < 5e-2 and errors["cast_mismatches"] == 0


@pytest.mark.slow
def test_bf16_kernels_are_wrong_without_the_shims():
    """Guards the shim's reason to exist: if Triton fixes its interpreter, this fails and the shim can go."""
    errors = run_script()
    assert errors["dot"] > 1 or errors["cast_mismatches"] > 0


def shimmed_and_bare(script: str) -> tuple[dict, dict]:
    """What the fixture `interpreter/SCRIPT` prints with the interpreter's shims installed, and without them."""
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    outcomes = []
    for flags in (["--shim"], []):
        result = subprocess.run([sys.executable, str(FIXTURES / "interpreter" / script), *flags],
                                capture_output=True, text=True, env=env, timeout=300)
        assert result.returncode == 0, result.stderr[-2000:]
        outcomes.append(json.loads(result.stdout.strip().splitlines()[-1]))
    return outcomes[0], outcomes[1]


def test_masks_from_a_scalar_condition_work_with_the_shims():
    shimmed, bare = shimmed_and_bare("scalar_masks.py")
    assert shimmed == {"block_and_scalar": True, "scalar_only": True, "atomic": True}
    # The shim's reason to exist: if Triton's interpreter learns to broadcast these masks, this fails.
    assert any(value is not True for value in bare.values()), bare


DEVICE_CALLS = FIXTURES / "interpreter" / "device_calls.py"


def test_a_jit_helper_called_in_every_program_does_not_patch_the_language_again():
    # 16 programs x 4 steps x 2 helpers: upstream patches triton.language on each of those 128 calls (a fifth of
    # the suite's candidate time on the CPU); with the shim, the launch's one patching serves them all.
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    runs = {}
    for flags in ((), ("--shim",)):
        result = subprocess.run([sys.executable, str(DEVICE_CALLS), *flags], capture_output=True, text=True, env=env,
                                timeout=300)
        assert result.returncode == 0, result.stderr[-2000:]
        runs[flags] = json.loads(result.stdout.strip().splitlines()[-1])
    plain, shimmed = runs[()], runs[("--shim",)]
    assert plain["right"] and shimmed["right"] and shimmed["restored"]
    assert plain["patches"] == 1 + 16 * 4 * 2 and shimmed["patches"] == 1


FLOAT_TO_INT = Path(__file__).parents[3] / "scripts" / "probe_float_to_int.py"
H200_CONVERSIONS = FIXTURES / "interpreter" / "float_to_int_h200.txt"


def converted(*flags: str) -> list[str]:
    """The probe's lines of converted values under the interpreter (its first line names the device)."""
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    result = subprocess.run([sys.executable, str(FLOAT_TO_INT), *flags], capture_output=True, text=True, env=env,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip().splitlines()[1:]


def test_float_to_int_conversions_match_an_h200_with_the_shims():
    # The fixture is the probe's output on an NVIDIA H200 (Triton 3.6, 2026-11-28): saturation, the 8-bit results'
    # 16-bit saturation, NaN; a kernel that converts before it clamps is right there and must be right here.
    assert converted("--shims") == H200_CONVERSIONS.read_text().strip().splitlines()[1:]


def test_float_to_int_conversions_differ_without_the_shims():
    """The shim's reason to exist: if the interpreter learns to saturate as a GPU does, this fails."""
    assert converted() != H200_CONVERSIONS.read_text().strip().splitlines()[1:]


def test_gpu_float_to_int_saturates_and_keeps_the_low_byte_of_8_bit_results():
    values = np.array([1e30, -1e30, 200.0, -2.5, np.nan], dtype=np.float32)
    assert gpu_float_to_int(values, False, np.dtype(np.int32)).tolist() == [2**31 - 1, -(2**31), 200, -2, 0]
    assert gpu_float_to_int(values, False, np.dtype(np.int8)).tolist() == [-1, 0, -56, -2, 0]
    assert gpu_float_to_int(values, False, np.dtype(np.uint8)).tolist() == [255, 0, 200, 0, 0]
    assert gpu_float_to_int(values, False, np.dtype(np.int64)).tolist()[-1] == -(2**63)
    assert gpu_float_to_int(values.astype(np.float64), True, np.dtype(np.int32)).tolist()[-1] == -(2**31)


def test_own_combine_functions_run_on_blocks_in_a_tree_and_give_the_rows_answers():
    shimmed, bare = shimmed_and_bare("custom_combines.py")
    for outcome in (shimmed, bare):
        assert outcome["welford"] < 1e-4
        # affine maps composed in int64: exact, so only the row's own order gives these answers
        assert outcome["compose"] and outcome["compose_scan"] and outcome["compose_scan_reverse"]
        assert outcome["tiles"]  # a 2-D tile along either axis, keep_dims, and a scan down its columns
        assert outcome["branchy"]  # Python `if` on the operands: the one-by-one path, which only scalars can take
    # 6 rows of 256: log2(256) levels of one call each per row, for two reductions and two scans; then an 8 x 32
    # tile: log2(32) levels along its rows, log2(8) down its columns, and log2(8) for the scan down them
    assert shimmed["calls"] == 6 * 8 * 4 + 5 + 3 + 3
    # The shim's reason to exist: upstream calls a combine function once per element
    assert bare["calls"] >= 6 * 255 * 4


def test_casts_to_bf16_from_every_dtype_round_as_torch_does_with_the_shims():
    shimmed, bare = shimmed_and_bare("bf16_casts.py")
    assert all(shimmed.values()), shimmed
    # The shim's reason to exist: upstream takes an integer's or a float64's value for a bf16 bit pattern
    assert not bare["torch.int32->bf16"] and not bare["torch.float64->bf16"]


def test_float_arguments_and_loop_variables_are_tensors_as_on_a_gpu_with_the_shims():
    shimmed, bare = shimmed_and_bare("scalar_tensors.py")
    assert all(shimmed.values()), shimmed
    # The shim's reason to exist: upstream gives them as Python numbers, which have no `.to` and do not promote
    assert not bare["loop_variable"] and not bare["float_argument"] and not bare["promoted"]


def test_tensor_descriptors_work_with_the_shims():
    # the mask shim passed no keyword arguments on, and the interpreter's descriptor loads give `cache_policy`
    # (an honest silu on host TensorDescriptors was a RUNTIME_ERROR, 2026-11-28)
    shimmed, bare = shimmed_and_bare("tensor_descriptors.py")
    assert shimmed == bare == {"device": True, "host": True}


def test_gpu_device_queries_answer_with_the_shims():
    """A grid sized per SM (torch's properties, Triton's driver) ran on a GPU and raised on the CPU (an honest
    persistent bernoulli: RUNTIME_ERROR); with the shims it is launched. Host code sees a CUDA target (the tutorials'
    `is_cuda()`), a kernel being interpreted none (`tl.target_info.is_cuda()` False, so no inline PTX), and CUDA
    stays unavailable."""
    shimmed, bare = shimmed_and_bare("device_queries.py")
    assert shimmed == {"torch": True, "triton": True, "cuda_available": False, "target": "cuda",
                       "kernel_is_cuda": 0}, shimmed
    assert bare["torch"] is None and bare["triton"] is None and bare["target"] is None, bare
    assert bare["kernel_is_cuda"] == 0, bare


def test_fp8_casts_round_to_even_with_the_shims():
    """The interpreter rounded a tie up, truncated subnormals and carried into the exponent wrongly (an honest
    quantize_fp8_e4m3 that casts with `.to(tl.float8e4nv)` was MISMATCH on a quarter of its elements), and widened
    the NaN and inf codes to finite numbers."""
    shimmed, bare = shimmed_and_bare("fp8_casts.py")
    assert set(shimmed.values()) == {0}, shimmed
    assert bare["torch.float32"] > 0 and bare["torch.float8_e4m3fn -> torch.float32"] > 0, bare


def test_comparisons_of_a_scalar_broadcast_as_booleans_with_the_shims():
    """`(r > j) & (pivot != 0.0)` raised in the interpreter (its scalar comparison was typed fp32, so the broadcast
    made floats of its booleans): an honest lu_factor was RUNTIME_ERROR; a GPU compiles it."""
    shimmed, bare = shimmed_and_bare("scalar_comparisons.py")
    assert shimmed == {"and_scalar": True, "or_scalar": True}, shimmed
    assert bare["and_scalar"] is None, bare


def test_a_cuda_device_guard_around_a_launch_is_a_no_op_for_the_cpu_with_the_shims():
    # Mamba's wrappers launch inside `with torch.cuda.device(x.device.index)`: an honest causal_conv1d failed on the
    # CPU alone (index None: TypeError; a CPU device: ValueError), 2026-11-28. A CUDA index still raises.
    shimmed, bare = shimmed_and_bare("cuda_device_guard.py")
    assert shimmed["index"] is True and shimmed["device"] is True and shimmed["name"] is True, shimmed
    assert shimmed["cuda_index"] not in (True, False), shimmed
    assert bare["index"] == "TypeError" and bare["device"] == "ValueError", bare


def test_int32_arithmetic_wraps_as_before_without_the_discarded_overflow_checks():
    shimmed, bare = shimmed_and_bare("int32_arithmetic.py")
    x = np.array([0, 1, 40000, -40000, 2**31 - 1, -(2**31), 123456, 32768], dtype=np.int64)
    wrapped = ((x * 65536 + x - 7 + 2**31) % 2**32 - 2**31).tolist()  # two's complement, as a GPU computes it
    assert shimmed["outputs"] == bare["outputs"] == wrapped
    # Upstream computes an int64 check per int32 `*`, `+`, `-` and hands it to a device_assert that drops it
    # (debug off): half of an honest conv3d's CPU time. If upstream stops, this fails and that shim can go.
    assert shimmed["checks"] == 0 and bare["checks"] >= 3, (shimmed, bare)


def test_block_types_and_shapes_are_made_once_per_shape_and_change_no_output():
    shimmed, bare = shimmed_and_bare("shared_types.py")
    assert shimmed["outputs"] == bare["outputs"]
    # Upstream builds a block type per operation per program (with a tl.tuple shape and a name string): a fifth of
    # the interpreter's time. The shim makes the builder's and `with_element_ty`'s once per (element type, shape)
    # (semantic's own few, and the GPU-frontend check's lowering, still build theirs); its tensor.__init__ replaces
    # upstream's only where upstream's source is the one it copies (Triton 3.9.0): if Triton changes it, this fails.
    assert shimmed["shim_init"] and not bare["shim_init"], (shimmed, bare)
    assert shimmed["built"] < bare["built"] / 2, (shimmed["built"], bare["built"])
