"""The interpreter shims make bf16 kernels compute what a GPU computes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from kbx.evaluation.candidate.interpreter import bf16_bits_to_f32, f32_to_bf16_bits
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
