"""Under the CPU interpreter, a kernel must also be one a GPU's Triton would compile: Python that only the
interpreter runs is REJECTED_RUNTIME (`runtime.not_triton`), and Triton that only the CPU's newer version refuses
(block pointers) is not."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import torch
import triton.language as tl

import kbx
from kbx.evaluation.candidate.gpu_frontend import specialization
from tests.conftest import FIXTURES

SCRIPT = FIXTURES / "interpreter" / "frontend_kernels.py"
SRC = os.path.dirname(os.path.dirname(kbx.__file__))


@pytest.fixture(scope="module")
def launches() -> dict[str, str]:
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    done = subprocess.run([sys.executable, str(SCRIPT), SRC], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("kernel", ["honest", "honest_bf16", "scalar_loop", "block_pointer", "block_methods"])
def test_kernels_a_gpu_compiles_run(launches, kernel):
    assert launches[kernel] == "ran"


@pytest.mark.parametrize(("kernel", "why"), [
    ("numpy_on_the_handle", "IR handle used as Python data"),
    ("list_comprehension", "comprehension"),
    ("python_branch_on_a_block", "IR handle"),
])
def test_python_only_the_interpreter_runs_is_not_a_kernel(launches, kernel, why):
    assert launches[kernel].startswith("NotTriton: runtime.not_triton: kernel"), launches[kernel]
    assert why in launches[kernel]


def test_the_specialization_types_arguments_and_keys_constexprs_by_position():
    def kernel(x_ptr, out_ptr, n, scale, flag, BLOCK: tl.constexpr, EXTRA: tl.constexpr = 3):  # noqa: N803
        pass

    x = torch.zeros(4, dtype=torch.bfloat16)
    signature, constants = specialization(kernel, (x, x, 7, 0.5, True), {"BLOCK": 64, "num_warps": 4})
    assert signature == {"x_ptr": "*bf16", "out_ptr": "*bf16", "n": "i32", "scale": "fp32", "flag": "u1",
                         "BLOCK": "constexpr", "EXTRA": "constexpr"}
    assert constants == {(5,): 64, (6,): 3}
