"""The executable half of a KernelBench task: inputs and weights from a case's seed, the reference, and the
candidate's `ModelNew` built beside them with `Model`'s weights."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from kbx.tasks.kernelbench.code import copy_weights
from kbx.tasks.kernelbench.problem import read_problem
from kbx.tasks.module import CandidateCodeFailed, import_task
from tests.tasks.kernelbench.problems import FIXTURES, write

LINEAR = FIXTURES / "level2" / "1_Linear_ReLU.py"


def draw(make_inputs, task, workload="smoke", seed=1):
    return make_inputs(task.workload(workload), "float32", torch.Generator().manual_seed(seed))


class SameNames(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.linear(x))


class OtherNames(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(out_features, in_features))

    def forward(self, x):
        return x @ self.weight.t()


def test_inputs_are_the_case_module_and_the_forward_arguments_at_the_workload_sizes():
    task = read_problem(LINEAR)
    inputs = draw(import_task(task).make_inputs, task)
    sizes = task.workload("smoke").params["sizes"]
    assert list(inputs) == ["model", "x"]
    assert inputs["x"].shape == (sizes["batch_size"], sizes["in_features"])
    assert inputs["model"].model.linear.weight.shape == (sizes["out_features"], sizes["in_features"])
    assert not inputs["model"].model.linear.weight.requires_grad


def test_a_seed_makes_the_same_weights_and_inputs_and_another_seed_others():
    task = read_problem(LINEAR)
    code = import_task(task)
    first, again = draw(code.make_inputs, task), draw(code.make_inputs, task)
    other = draw(code.make_inputs, task, seed=2)
    assert torch.equal(first["x"], again["x"])
    assert torch.equal(first["model"].model.linear.weight, again["model"].model.linear.weight)
    assert not torch.equal(first["x"], other["x"])
    assert not torch.equal(first["model"].model.linear.weight, other["model"].model.linear.weight)


def test_the_reference_is_model_on_the_inputs():
    task = read_problem(LINEAR)
    code = import_task(task)
    inputs = draw(code.make_inputs, task)
    linear = inputs["model"].model.linear
    expected = torch.relu(inputs["x"] @ linear.weight.t() + linear.bias)
    assert torch.allclose(code.reference(**inputs), expected, atol=1e-6)


def test_the_candidate_gets_models_weights_under_the_same_names():
    task = read_problem(LINEAR)
    code = import_task(task)
    call, candidate_inputs = code.for_candidate(SameNames)
    mine, theirs = draw(candidate_inputs, task), draw(code.make_inputs, task)
    assert isinstance(mine["model"].model, SameNames)
    assert torch.equal(mine["model"].model.linear.weight, theirs["model"].model.linear.weight)
    assert torch.equal(mine["x"], theirs["x"])
    assert torch.equal(call(**mine), code.reference(**theirs))


def test_weights_under_other_names_keep_what_the_candidates_constructor_drew():
    task = read_problem(LINEAR)
    _, candidate_inputs = import_task(task).for_candidate(OtherNames)
    assert torch.count_nonzero(draw(candidate_inputs, task)["model"].model.weight) == 0


def test_copy_weights_matches_names_and_shapes_and_says_what_it_left():
    source, target = nn.Linear(3, 4), nn.Sequential()
    target.weight = nn.Parameter(torch.zeros(4, 3))
    target.bias = nn.Parameter(torch.zeros(5))
    assert copy_weights(source, target) == ["bias"]
    assert torch.equal(target.weight, source.weight) and torch.count_nonzero(target.bias) == 0


class Raises(nn.Module):
    def __init__(self, in_features, out_features):
        raise ValueError("no")


def not_a_module(in_features, out_features):
    return "not a module"


@pytest.mark.parametrize("candidate", [Raises, not_a_module])
def test_a_constructor_that_fails_is_the_candidates_failure(candidate):
    task = read_problem(LINEAR)
    _, candidate_inputs = import_task(task).for_candidate(candidate)
    with pytest.raises(CandidateCodeFailed, match=r"ModelNew\(\*get_init_inputs\(\)\) failed"):
        draw(candidate_inputs, task)


def test_float64_arguments_run_a_float64_copy_of_the_module():
    task = read_problem(LINEAR)
    code = import_task(task)
    inputs = draw(code.make_inputs, task)
    wide = code.reference(**{**inputs, "x": inputs["x"].double()})
    assert wide.dtype == torch.float64
    assert torch.allclose(wide.float(), code.reference(**inputs), atol=1e-5)
    assert inputs["model"].model.linear.weight.dtype == torch.float32


def test_a_forward_that_draws_random_numbers_is_reseeded_per_call(tmp_path):
    source = LINEAR.read_text().replace("self.linear = nn.Linear(in_features, out_features)",
                                        "self.linear = nn.Linear(in_features, out_features)\n"
                                        "        self.drop = nn.Dropout(0.5)")
    source = source.replace("return torch.relu(self.linear(x))", "return self.drop(torch.relu(self.linear(x)))")
    task = read_problem(write(tmp_path, "level2/1_Dropped", source))
    code = import_task(task)
    inputs = draw(code.make_inputs, task)
    assert torch.equal(code.reference(**inputs), code.reference(**inputs))


def test_every_fixture_problem_runs_at_its_smoke_and_check_sizes():
    from kbx.tasks.registry import load_suite

    for task in load_suite(f"kernelbench:{FIXTURES}"):
        code = import_task(task)
        for role in ("smoke", "check"):
            outputs = code.reference(**draw(code.make_inputs, task, role))
            assert torch.isfinite(outputs).all()
