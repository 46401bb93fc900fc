"""Every parameter of a task's reference takes a value other than its default in at least one smoke or check
workload (the workloads the CPU runs, so a candidate that ignores the parameter fails in CI), unless the task names
it in `TASK["defaults_kept"]` with the reason a non-default value makes no sense there (issue 20). Inputs are made;
no candidate runs."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from kbx.evaluation.cases import DEVICE_ROLES
from kbx.tasks.module import import_task
from kbx.tasks.registry import default_suite_root, load_suite

TASKS = load_suite(default_suite_root())


def is_default(value: Any, default: Any) -> bool:
    """Whether a made input is the parameter's default: a tensor never is (defaults are literals), sequences
    compare as tuples (`[-1]` is `(-1,)`), numbers by value (`1` is `1.0`) but a bool only as a bool."""
    if isinstance(value, torch.Tensor):
        return False
    if isinstance(value, (list, tuple)) and isinstance(default, (list, tuple)):
        return tuple(value) == tuple(default)
    return isinstance(value, bool) == isinstance(default, bool) and value == default


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_every_parameter_takes_a_non_default_value(task):
    code = import_task(task)
    defaults = {p.name: p.default for p in task.signature.parameters if p.has_default}
    varied: set[str] = set()
    for workload in task.workloads_for(DEVICE_ROLES["cpu"]):
        made = code.make_inputs(workload, task.dtypes[0], torch.Generator().manual_seed(1))
        varied |= {name for name, default in defaults.items() if name in made and not is_default(made[name], default)}
    kept = set(task.defaults_kept)
    assert not kept & varied, f"{sorted(kept & varied)} vary, yet TASK['defaults_kept'] says they keep their default"
    missing = set(defaults) - varied - kept
    assert not missing, (
        f"{sorted(missing)} keep their default in every smoke and check workload: vary them in one, or name them "
        "in TASK['defaults_kept'] with the reason"
    )


def test_a_made_input_equal_to_the_default_counts_as_the_default():
    assert is_default([-1], (-1,)) and is_default(None, None) and is_default(1e-5, 1e-5) and is_default(False, False)
    assert not is_default(torch.zeros(1), None) and not is_default(True, False) and not is_default(0.25, 1e-5)
    assert is_default(1, 1.0) and not is_default(True, 1) and not is_default("nearest", "bilinear")
