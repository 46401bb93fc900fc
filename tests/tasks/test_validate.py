"""`kbx tasks validate`: a task's code is run on its smoke workloads and its perturbation is tried, and each way a
task can be wrong is one TaskError naming what."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kbx.errors import TaskError
from kbx.tasks.meta import read_task
from kbx.tasks.validate import check_code, validate
from tests.tasks.test_meta import GELU, corrupt, with_own_perturb

MAKE_INPUTS_RETURN = ('    return {"input": inputs.layout(x, p.get("layout", "contiguous")), '
                      '"approximate": p["approximate"]}\n')


@pytest.fixture
def gelu_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "suite" / "Activation" / "gelu"
    shutil.copytree(GELU, folder)
    return folder


def _check(folder: Path) -> None:
    check_code(read_task(folder))


def test_a_sound_task_passes(gelu_copy):
    _check(gelu_copy)


@pytest.mark.parametrize(("returned", "problem"), [
    ("[x]", r"make_inputs\('smoke', 'float32'\) returned list, not a dict"),
    ('{"approximate": p["approximate"]}', r"lacks argument\(s\) \['input'\]"),
    ('{"input": x, "approximate": p["approximate"], "out": x}', r"returned unknown argument\(s\) \['out'\]"),
])
def test_inputs_that_do_not_fit_the_signature_are_refused(gelu_copy, returned, problem):
    corrupt(gelu_copy, MAKE_INPUTS_RETURN, f"    return {returned}\n")
    with pytest.raises(TaskError, match=problem):
        _check(gelu_copy)


def test_an_input_maker_that_raises_is_named(gelu_copy):
    corrupt(gelu_copy, "    p = workload.params\n", "    p = workload.params\n    raise OSError('no disk')\n")
    with pytest.raises(TaskError, match=r"make_inputs\('smoke', 'float32'\) raised OSError: no disk"):
        _check(gelu_copy)


def test_a_reference_that_raises_on_a_smoke_workload_is_named(gelu_copy):
    corrupt(gelu_copy, "    return F.gelu(input, approximate=approximate)\n",
            "    assert approximate == 'none'\n    return F.gelu(input)\n")
    with pytest.raises(TaskError, match="reference on smoke_tanh/float32 raised AssertionError"):
        _check(gelu_copy)


def test_a_perturbation_that_never_moves_the_sizes_is_refused(gelu_copy):
    with_own_perturb(gelu_copy)
    corrupt(gelu_copy, '    return {**workload.params, "shape": sizes.shape_near(rng, workload.params["shape"])}',
            "    return dict(workload.params)")
    with pytest.raises(TaskError, match=r"perturb\('check_tail'\) never moves the sizes"):
        _check(gelu_copy)


def test_a_perturbation_that_outgrows_the_check_workloads_is_refused(gelu_copy):
    with_own_perturb(gelu_copy)
    corrupt(gelu_copy, '"shape": sizes.shape_near(rng, workload.params["shape"])', '"shape": [200, 100]')
    with pytest.raises(TaskError, match=r"inputs of 20000 elements, more than the largest check workload's 16383"):
        _check(gelu_copy)


def test_validate_collects_every_problem_and_counts_every_folder(gelu_copy):
    suite = gelu_copy.parents[1]
    shutil.copytree(GELU.parent / "relu", suite / "Activation" / "relu")
    corrupt(gelu_copy, "    p = workload.params\n", "    raise OSError('no disk')\n")
    problems, count = validate(suite)
    assert count == 2
    assert [p.path for p in problems] == [gelu_copy / "task.py"]
