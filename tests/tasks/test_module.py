"""Importing a task's code: under a private name, out of `sys.modules` unless asked, failures as TaskError."""

from __future__ import annotations

import shutil
import sys

import pytest
import torch

from kbx.errors import TaskError
from kbx.tasks.meta import read_task
from kbx.tasks.module import import_task
from tests.tasks.test_meta import GELU, corrupt


@pytest.fixture
def gelu_copy(tmp_path):
    folder = tmp_path / "Activation" / "gelu"
    shutil.copytree(GELU, folder)
    return folder


def test_the_reference_and_input_maker_are_the_task_files_own(suite):
    code = import_task(suite["gelu"])
    inputs = code.make_inputs(suite["gelu"].workload("smoke"), "float32", torch.Generator().manual_seed(0))
    assert set(inputs) == {"input", "approximate"}
    torch.testing.assert_close(code.reference(**inputs), torch.nn.functional.gelu(inputs["input"]))
    assert code.check_outputs is None and code.flops is None and code.baseline is None


def test_the_module_stays_out_of_sys_modules_unless_registered(suite):
    import_task(suite["relu"])
    assert "_kbx_task_relu" not in sys.modules
    try:
        code = import_task(suite["relu"], register=True)
        assert sys.modules["_kbx_task_relu"].reference is code.reference
    finally:
        sys.modules.pop("_kbx_task_relu", None)


def test_a_task_that_fails_to_import_is_a_task_error(gelu_copy):
    corrupt(gelu_copy, "import torch.nn.functional as F\n", "import torch.nn.functional as F\n1 / 0\n")
    with pytest.raises(TaskError, match="import failed: ZeroDivisionError"):
        import_task(read_task(gelu_copy))
    assert "_kbx_task_gelu" not in sys.modules


def test_optional_functions_are_picked_up(gelu_copy):
    path = gelu_copy / "task.py"
    path.write_text(path.read_text() + "\n\ndef flops(input, approximate):\n    return 7\n\n"
                    "def baseline(input, approximate='none'):\n    return F.gelu(input, approximate=approximate)\n")
    code = import_task(read_task(gelu_copy))
    assert code.flops(input=None, approximate="none") == 7
    assert code.baseline is not None and code.eager is code.baseline


def test_a_native_candidate_is_called_as_it_is_with_the_tasks_inputs(suite):
    code = import_task(suite["relu"])

    def entry(input):
        return input

    assert code.for_candidate(entry) == (entry, code.make_inputs)
