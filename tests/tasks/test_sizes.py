import math
import random
import re
import shutil
from pathlib import Path

import pytest

from kbx.errors import TaskError
from kbx.tasks import sizes
from kbx.tasks.meta import read_task
from kbx.tasks.module import import_task
from kbx.tasks.registry import default_suite_root, load_suite
from kbx.tasks.validate import check_perturb
from tests.tasks.test_meta import with_own_perturb

GELU = read_task(default_suite_root() / "Activation" / "gelu")
SUM = read_task(default_suite_root() / "Reduce" / "sum")


class _RandomOnly:
    """A generator with nothing but `random()`: the helpers must draw with it alone (its sequence is the one
    Python promises to keep across versions)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def random(self) -> float:
        return self._rng.random()


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 127, 4097])
def test_odd_near_is_odd_in_range_and_moves(n):
    values = {sizes.odd_near(_RandomOnly(seed), n) for seed in range(200)}
    assert all(v % 2 == 1 and math.ceil(0.5 * n) <= v <= max(1.5 * n, 1) for v in values), values
    if n > 3:
        assert n not in values and len(values) > 1


def test_multiple_near_keeps_alignment_and_moves():
    values = {sizes.multiple_near(_RandomOnly(seed), 256, 16, high=1.0) for seed in range(100)}
    assert values and all(v % 16 == 0 and 128 <= v < 256 for v in values)


def test_shape_near_keeps_ones_kept_positions_bounds_and_cost():
    cost = lambda d: (math.prod(d), d[0] + d[2])
    for seed in range(100):
        shape = sizes.shape_near(_RandomOnly(seed), [65, 1, 129, 7], keep=[-1], at_least={0: 60}, cost=cost)
        assert shape[1] == 1 and shape[3] == 7 and shape[0] >= 60
        assert all(c <= b for c, b in zip(cost(shape), cost([65, 1, 129, 7])))


def test_perturbed_is_a_pure_function_of_task_workload_and_secret():
    workload = GELU.workload("check_2d_t")
    a, b = sizes.perturbed(GELU, workload, 42), sizes.perturbed(GELU, workload, 42)
    assert a == b and a.name == "check_2d_t~p" and a.role == "check"
    assert a.params["layout"] == "transposed" and a.params["shape"] != [129, 127]
    others = {tuple(sizes.perturbed(GELU, workload, s).params["shape"]) for s in range(10)}
    assert len(others) > 1


def test_perturbed_keeps_constraints_make_inputs_relies_on():
    for seed in range(20):
        for workload in SUM.workloads_for(("check",)):
            p = sizes.perturbed(SUM, workload, seed).params
            dims = [p["dim"]] if isinstance(p["dim"], int) else p["dim"]
            assert p["length"] == math.prod(p["shape"][d] for d in dims)


def test_every_suite_task_perturbs_its_check_workloads():
    assert all(task.perturbs for task in load_suite())


@pytest.fixture
def gelu_copy(tmp_path: Path) -> Path:
    """gelu, with a perturb function of its own."""
    folder = tmp_path / "Activation" / "gelu"
    shutil.copytree(default_suite_root() / "Activation" / "gelu", folder)
    return with_own_perturb(folder)


def _with_perturb(folder: Path, body: str):
    """The gelu copy with its perturb's body replaced."""
    path = folder / "task.py"
    text = path.read_text()
    head = text[: text.index("def perturb(workload, rng):")]
    path.write_text(f"{head}def perturb(workload, rng):\n    {body}\n")
    return read_task(folder)


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("return [1]", "returned list, not a dict"),
        ("return {'shape': 1 // 0}", "raised ZeroDivisionError"),
        ("return {'shape': {1, 2}}", "not JSON-like"),
    ],
)
def test_failing_perturb_is_a_one_line_task_error(gelu_copy, body, problem):
    task = _with_perturb(gelu_copy, body)
    with pytest.raises(TaskError) as info:
        sizes.perturbed(task, task.workload("check_tail"), 0)
    assert problem in str(info.value) and str(gelu_copy / "task.py") in str(info.value)
    assert "\n" not in str(info.value)


def test_perturb_cannot_change_the_task_workloads(gelu_copy):
    task = _with_perturb(gelu_copy, "workload.params['shape'][0] = 5; return dict(workload.params)")
    assert sizes.perturbed(task, task.workload("check_tail"), 0).params["shape"] == [5]
    assert task.workload("check_tail").params["shape"] == [4097]


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("return {**workload.params, 'shape': [-3]}", "make_inputs('check_tail~p', 'float32') raised"),
        ("return {**workload.params, 'shape': [100000]}", "more than the largest check workload"),
        ("return dict(workload.params)", "never moves the sizes"),
    ],
)
def test_validation_smoke_checks_perturbed_inputs(gelu_copy, body, problem):
    task = _with_perturb(gelu_copy, body)
    with pytest.raises(TaskError, match=re.escape(problem)) as info:
        check_perturb(task, import_task(task))
    assert "\n" not in str(info.value)
