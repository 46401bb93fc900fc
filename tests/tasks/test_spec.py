"""The typed task values: signatures render as Python does, tolerances widen with the reduction, a task finds its
files and workloads."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import MappingProxyType

import pytest

from kbx.tasks.spec import (
    CATEGORIES,
    MATMUL_OPERATOR,
    Contract,
    ModuleInterface,
    Parameter,
    Signature,
    Tolerance,
    Workload,
    normalise_op,
    reduction_length_of,
)


def test_forbidden_names_compare_case_and_underscore_blind():
    assert normalise_op("relu_") == normalise_op("ReLU") == normalise_op("__relu__") == "relu"
    assert normalise_op("LayerNorm") == normalise_op("layer_norm")
    assert normalise_op(MATMUL_OPERATOR) == "@"


def test_a_signature_renders_as_python_writes_it():
    signature = Signature((Parameter("input"), Parameter("approximate", True, "none"), Parameter("dim", True, None)))
    assert signature.render() == "(input, approximate='none', dim=None)"
    assert signature.names == ("input", "approximate", "dim")


def test_a_tolerance_without_a_reduction_length_is_the_dtypes_own():
    contract = Contract("allclose", {"float32": Tolerance(1e-5, 1e-5)})
    assert contract.tolerance("float32", Workload("check", "check", {"n": 10_000})) == Tolerance(1e-5, 1e-5)


def test_atol_widens_with_the_square_root_of_the_reduction_length():
    contract = Contract("allclose", {"float32": Tolerance(1e-5, 2e-5)}, reduction_length="k")
    assert contract.tolerance("float32", Workload("bench", "bench", {"k": 4096})) == pytest.approx(
        Tolerance(64e-5, 2e-5))
    assert contract.tolerance("float32", Workload("tiny", "smoke", {"k": 0})) == Tolerance(1e-5, 2e-5)


def test_a_reduction_length_may_name_an_entry_of_a_shape_parameter():
    params = {"input": [3, 33, 65], "K": 128, "layout": "transposed", "flag": True}
    assert reduction_length_of("input[-1]", params) == 65.0 and reduction_length_of("input[0]", params) == 3.0
    assert reduction_length_of("K", params) == 128.0
    for spec, error in [("input[3]", ValueError), ("input[-4]", ValueError), ("input", ValueError),
                        ("layout", ValueError), ("flag", ValueError), ("K[0]", ValueError), ("weight[-1]", KeyError)]:
        with pytest.raises(error):
            reduction_length_of(spec, params)
    contract = Contract("allclose", {"float16": Tolerance(1e-3, 1e-3)}, reduction_length="input[-1]")
    assert contract.tolerance("float16", Workload("bench", "bench", params)).atol == pytest.approx(1e-3 * 65**0.5)


def test_a_gpu_leaves_out_the_workloads_that_need_more_memory_than_it_has(suite):
    task = suite["gelu"]  # a task with no workload of its own that needs a large GPU
    big = Workload("bench_huge", "bench", {"shape": [1 << 16, 1 << 15]}, min_gpu_gib=139.0)
    task = dataclasses.replace(task, workloads=(*task.workloads, big))
    assert task.fit_to_gpu(None) == (task, ())
    assert task.fit_to_gpu(140 * 2**30) == (task, ())
    fitted, left = task.fit_to_gpu(80 * 2**30)
    assert left == ("bench_huge",) and big not in fitted.workloads
    assert fitted.workloads == task.workloads[:-1] and fitted.version == task.version


def test_a_task_finds_its_files_and_workloads(suite):
    gelu = suite["gelu"]
    assert gelu.category in CATEGORIES
    assert gelu.task_file == gelu.path / "task.py" and gelu.task_file.is_file()
    assert gelu.solution_file == gelu.path / "solution.py"
    assert gelu.wrong_files() and all(p.parent == gelu.path / "wrong" for p in gelu.wrong_files())
    assert gelu.honest_files() and all(p.parent == gelu.path / "honest" for p in gelu.honest_files())
    assert {w.role for w in gelu.workloads_for(("smoke", "check"))} == {"smoke", "check"}
    assert gelu.workload("check_tail").params["shape"] == [4097]
    with pytest.raises(KeyError, match="gelu has no workload 'nope'"):
        gelu.workload("nope")


def test_a_native_task_is_called_by_its_name_and_a_kernelbench_problem_by_its_class(suite):
    relu = suite["relu"]
    assert relu.entry_point == "relu"
    problem = dataclasses.replace(relu, path=Path("/k/level1/19_ReLU.py"),
                                  module=ModuleInterface((), Signature((Parameter("x"),))))
    assert problem.entry_point == "ModelNew"
    assert problem.task_file == Path("/k/level1/19_ReLU.py")


def test_a_task_perturbs_when_it_has_a_perturbation(suite):
    assert suite["gelu"].perturbs
    assert not dataclasses.replace(suite["gelu"], perturb_source="").perturbs


def test_tasks_are_immutable(suite):
    with pytest.raises(dataclasses.FrozenInstanceError):
        suite["gelu"].name = "other"


def test_derived_reduction_lengths_follow_shape_dim_and_reduction():
    assert reduction_length_of("shape/dim", {"shape": [3, 4, 5], "dim": None}) == 60.0
    assert reduction_length_of("shape/dim", {"shape": [3, 4, 5]}) == 60.0
    assert reduction_length_of("shape/dim", {"shape": [3, 4, 5], "dim": -1}) == 5.0
    assert reduction_length_of("shape/dim", {"shape": [3, 4, 5], "dim": [0, -1, 2]}) == 15.0  # a dim counted once
    assert reduction_length_of("shape/dim", {"shape": [3, 4, 5], "dim": []}) == 60.0  # torch reduces every dim
    assert reduction_length_of("shape/reduction", {"shape": [3, 4], "reduction": "mean"}) == 12.0
    assert reduction_length_of("shape/reduction", {"shape": [3, 4], "reduction": "none"}) == 1.0
    for params, error in [({"shape": [3], "dim": 1}, ValueError), ({"shape": [3], "dim": "x"}, ValueError),
                          ({"shape": "3", "dim": 0}, ValueError), ({"dim": 0}, KeyError)]:
        with pytest.raises(error):
            reduction_length_of("shape/dim", params)
    with pytest.raises(KeyError):
        reduction_length_of("shape/reduction", {"shape": [3]})


def test_an_exact_contract_allows_ulps_only_on_the_workloads_it_names_and_their_perturbed_copies():
    contract = Contract("exact", {}, ulps=MappingProxyType({"check_d2": 2}))
    assert contract.ulps_for(Workload("check_d2", "check", {})) == 2
    assert contract.ulps_for(Workload("check_d2~p", "check", {})) == 2
    assert contract.ulps_for(Workload("check_tail", "check", {})) == 0
