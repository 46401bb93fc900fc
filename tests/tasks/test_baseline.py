"""A task's own baseline: what is timed as eager, the precision baselines run under, and what `kbx tasks validate`
checks of it."""

import shutil
from dataclasses import replace

import pytest
import torch

from kbx.errors import TaskError
from kbx.tasks.baseline import baseline_precision, structure_problem
from kbx.tasks.meta import read_task
from kbx.tasks.module import import_task
from kbx.tasks.registry import default_suite_root
from kbx.tasks.validate import check_code
from tests.tasks.test_meta import GELU, corrupt

MATMUL_TF32 = read_task(default_suite_root() / "MatrixMultiply" / "matmul_tf32")


def _flags() -> tuple[bool, bool]:
    return torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32


@pytest.fixture
def tf32_off():
    saved = _flags()
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def test_a_contract_that_allows_tf32_runs_its_baselines_with_tf32_and_puts_the_flags_back(tf32_off):
    assert MATMUL_TF32.contract.tf32
    with baseline_precision(MATMUL_TF32.contract):
        assert _flags() == (True, True)
    assert _flags() == (False, False)
    with pytest.raises(RuntimeError, match="boom"), baseline_precision(MATMUL_TF32.contract):
        raise RuntimeError("boom")
    assert _flags() == (False, False)


def test_a_contract_without_tf32_runs_its_baselines_with_tf32_off_and_puts_the_flags_back(tf32_off):
    torch.backends.cudnn.allow_tf32 = True  # PyTorch's default: torch.compile's fp32 convolutions took TF32 with it
    contract = replace(MATMUL_TF32.contract, tf32=False)
    with baseline_precision(contract):
        assert _flags() == (False, False)
    assert _flags() == (False, True)


def test_the_eager_baseline_is_the_tasks_own_where_it_has_one():
    matmul = import_task(MATMUL_TF32)
    assert matmul.baseline is not None and matmul.eager is matmul.baseline
    gelu = import_task(read_task(GELU))
    assert gelu.baseline is None and gelu.eager is gelu.reference


def test_matmul_tf32s_reference_stays_exact_fp32_inside_the_baselines_precision(tf32_off):
    """The reference switches TF32 off for itself (it defines the exact product) and leaves the flag as it was."""
    code = import_task(MATMUL_TF32)
    inputs = code.make_inputs(MATMUL_TF32.workload("smoke"), "float32", torch.Generator().manual_seed(0))
    with baseline_precision(MATMUL_TF32.contract):
        assert torch.equal(code.reference(**inputs), torch.matmul(inputs["input"], inputs["other"]))
        assert _flags() == (True, True)


@pytest.mark.parametrize(("expected", "got", "problem"), [
    (torch.zeros(3), torch.zeros(3), None),
    ((torch.zeros(3), torch.zeros(2)), [torch.ones(3), torch.ones(2)], None),
    (torch.zeros(3), (torch.zeros(3), torch.zeros(3)), "returns 2 output(s), the reference 1"),
    (torch.zeros(3), torch.zeros(4), "output 0 is torch.float32 (4,), the reference's torch.float32 (3,)"),
    (torch.zeros(3), torch.zeros(3, dtype=torch.float16), "output 0 is torch.float16"),
    ((torch.zeros(3), 2), (torch.zeros(3), torch.zeros(1)), "output 1 is a Tensor, the reference's a int"),
])
def test_structure_problem(expected, got, problem):
    found = structure_problem(expected, got)
    assert found == problem if problem is None else problem in found


def test_validate_runs_the_baseline_on_every_smoke_workload_and_dtype(tmp_path):
    folder = tmp_path / "Activation" / "gelu"
    shutil.copytree(GELU, folder)
    corrupt(folder, "def make_inputs(", "def baseline(input, approximate='none'):\n"
                                        "    return F.gelu(input, approximate=approximate).float()\n\n\n"
                                        "def make_inputs(")
    with pytest.raises(TaskError, match=r"baseline on smoke/bfloat16 output 0 is torch.float32"):
        check_code(read_task(folder))
