"""The contract reader: a task's `contract` dict as a validated `Contract` (read_task's wiring is in test_meta)."""

from pathlib import Path

import pytest

from kbx.errors import TaskError
from kbx.tasks.contract_meta import read_contract
from kbx.tasks.spec import DEFAULT_TOLERANCE, Tolerance, Workload

WORKLOADS = (
    Workload("smoke", "smoke", {"n": 100}),
    Workload("check_tail", "check", {"n": 4097}),
    Workload("bench", "bench", {"n": 1 << 24}),
)
DTYPES = ("float32", "bfloat16")
INSENSITIVE = {"workloads": ["check_tail"], "reason": "the reference cancels there"}


def fail(problem: str) -> TaskError:
    return TaskError(Path("task.py"), problem)


def read(raw: object, dtypes: tuple[str, ...] = DTYPES, workloads: tuple[Workload, ...] = WORKLOADS):
    return read_contract(raw, dtypes, workloads, fail)


def test_defaults_fill_every_float_dtype_and_the_truth_rule():
    contract = read({"kind": "allclose"}, dtypes=("float32", "bfloat16", "int32"))
    assert dict(contract.tolerances) == {d: Tolerance(*DEFAULT_TOLERANCE[d]) for d in ("float32", "bfloat16")}
    assert contract.against_truth and contract.accumulation_dtype == "float32" and contract.perturbed_truth
    assert contract.against_reference == "" and dict(contract.insensitive) == {}
    assert contract.reduction_length is None and not contract.tf32 and contract.second_opinion


def test_a_tolerance_override_replaces_the_default_for_its_dtype_only():
    contract = read({"kind": "allclose", "tolerance": {"float32": [1e-4, 2e-4]}})
    assert contract.tolerances["float32"] == Tolerance(1e-4, 2e-4)
    assert contract.tolerances["bfloat16"] == Tolerance(*DEFAULT_TOLERANCE["bfloat16"])


def test_the_truth_rule_fields_and_their_exceptions_are_read():
    contract = read({"kind": "allclose", "accumulation_dtype": "float64", "reduction_length": "n",
                     "against_reference": "the dtype's range is the definition", "perturbed_truth": False,
                     "insensitive": INSENSITIVE})
    assert contract.accumulation_dtype == "float64" and contract.reduction_length == "n"
    assert not contract.against_truth and not contract.perturbed_truth
    assert dict(contract.insensitive) == {"check_tail": "the reference cancels there"}


def test_an_absolute_allowance_is_read_with_its_reason_and_reaches_the_allowance_in_units_of_u_acc():
    contract = read({"kind": "allclose", "absolute": {"units": 16, "reason": " exp(x) - 1 cancels near 0 "}})
    assert contract.absolute_units == 16.0 and contract.absolute_reason == "exp(x) - 1 cancels near 0"
    assert contract.allowance("bfloat16", WORKLOADS[0]).absolute == 16 * 2.0**-24  # u_acc: float32's
    assert read({"kind": "allclose"}).allowance("float32", WORKLOADS[0]).absolute == 0.0


def test_rounded_inputs_are_read_with_their_reason():
    contract = read({"kind": "allclose", "rounded_inputs": {"inputs": ["query"], "reason": " q * scale is rounded "}})
    assert contract.rounded_inputs == ("query",) and contract.rounded_reason == "q * scale is rounded"
    assert read({"kind": "allclose"}).rounded_inputs == ()


def test_exact_and_quantized_contracts_keep_their_own_fields():
    assert not read({"kind": "exact", "second_opinion": False}).second_opinion
    assert read({"kind": "quantized", "bound": 0.05}).bound == 0.05
    assert read({"kind": "quantized", "bound": 0.05}).bound_for("bfloat16") == 0.05


def test_a_quantized_contract_may_bound_each_dtype_apart():
    # matmul_w4a16: a running sum kept in fp16 stays under bf16's bound, so fp16 has a tighter one (session 25)
    contract = read({"kind": "quantized", "bound": {"float32": 1e-3, "bfloat16": 1e-2}})
    assert contract.bound_for("float32") == 1e-3 and contract.bound_for("bfloat16") == 1e-2 and contract.bound == 1e-2
    with pytest.raises(TypeError):
        contract.bounds["float32"] = 0.5  # type: ignore[index]


def test_the_contract_read_is_immutable():
    contract = read({"kind": "allclose", "insensitive": INSENSITIVE})
    with pytest.raises(TypeError):
        contract.tolerances["float32"] = Tolerance(1.0, 1.0)  # type: ignore[index]
    with pytest.raises(TypeError):
        contract.insensitive["bench"] = "x"  # type: ignore[index]


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("allclose", "contract must be a dict whose kind is one of"),
        ({"kind": "close"}, "contract must be a dict whose kind is one of"),
        ({"kind": "allclose", "rtol": 1e-3}, "contract has unknown keys rtol"),
        ({"kind": "allclose", "tolerance": {"float32": [0, 1e-9]}}, "tighter than one ulp"),
        ({"kind": "allclose", "tolerance": {"float32": [-1e-5, 1e-5]}}, "tighter than one ulp"),
        ({"kind": "allclose", "tolerance": {"float16": [1e-3, 1e-3]}}, "tolerance given for dtypes the task lacks"),
        ({"kind": "allclose", "reduction_length": "k"}, "reduction_length 'k' is not a number in workload 'smoke'"),
        ({"kind": "allclose", "reduction_length": "n[-1]"}, "reduction_length 'n[-1]' is not a number"),
        ({"kind": "allclose", "reduction_length": 4096}, "reduction_length must name a workload parameter"),
        ({"kind": "quantized"}, "a quantized contract needs a bound in (0, 1)"),
        ({"kind": "quantized", "bound": 1.0}, "a quantized contract needs a bound in (0, 1)"),
        ({"kind": "quantized", "bound": {"float32": 1e-3}}, "must name every dtype of the task"),
        ({"kind": "quantized", "bound": {"float32": 1e-3, "bfloat16": 2.0}}, "a quantized contract needs a bound"),
        ({"kind": "allclose", "second_opinion": False}, "exact contracts only"),
        ({"kind": "exact", "accumulation_dtype": "float32"}, "apply to allclose contracts only"),
        ({"kind": "allclose", "accumulation_dtype": "float16"}, "accumulation_dtype must be"),
        ({"kind": "allclose", "against_reference": " "}, "must say why"),
        ({"kind": "allclose", "against_reference": 1}, "must say why"),
        ({"kind": "allclose", "perturbed_truth": 1}, "perturbed_truth and tensor_cores must be"),
        ({"kind": "allclose", "tensor_cores": "yes"}, "perturbed_truth and tensor_cores must be"),
        ({"kind": "allclose", "tensor_cores": True}, "tensor_cores needs the reduction_length"),
        ({"kind": "allclose", "insensitive": {"workloads": ["bench"], "reason": "r"}}, "not check workloads"),
        ({"kind": "allclose", "insensitive": {"workloads": [], "reason": "r"}}, "insensitive must be"),
        ({"kind": "allclose", "insensitive": {"workloads": ["check_tail"], "reason": ""}}, "insensitive must be"),
        ({"kind": "allclose", "insensitive": {"workloads": ["check_tail"], "why": "r"}}, "insensitive must be"),
        ({"kind": "allclose", "absolute": {"units": 16}}, "absolute must be"),
        ({"kind": "allclose", "absolute": {"units": 0, "reason": "r"}}, "absolute must be"),
        ({"kind": "allclose", "absolute": {"units": 1e6, "reason": "r"}}, "absolute must be"),
        ({"kind": "allclose", "absolute": {"units": "16", "reason": "r"}}, "absolute must be"),
        ({"kind": "exact", "absolute": {"units": 16, "reason": "r"}}, "apply to allclose contracts only"),
        ({"kind": "allclose", "rounded_inputs": {"inputs": [], "reason": "r"}}, "rounded_inputs must be"),
        ({"kind": "allclose", "rounded_inputs": {"inputs": ["q"]}}, "rounded_inputs must be"),
        ({"kind": "exact", "rounded_inputs": {"inputs": ["q"], "reason": "r"}}, "apply to allclose contracts only"),
    ],
)
def test_a_malformed_contract_is_refused_through_fail(raw, problem):
    with pytest.raises(TaskError) as info:
        read(raw)
    assert info.value.path == Path("task.py") and problem in str(info.value)


def test_ulps_are_read_for_exact_contracts_naming_workloads_with_a_reason():
    contract = read({"kind": "exact", "ulps": {"units": 2, "workloads": ["check_tail"], "reason": " x / 100 "}})
    assert dict(contract.ulps) == {"check_tail": 2} and contract.ulps_reason == "x / 100"
    assert dict(read({"kind": "exact"}).ulps) == {}
    bad = [{"kind": "allclose", "ulps": {"units": 2, "workloads": ["check_tail"], "reason": "r"}},
           {"kind": "exact", "ulps": {"units": 2, "workloads": ["nope"], "reason": "r"}},
           {"kind": "exact", "ulps": {"units": 0, "workloads": ["check_tail"], "reason": "r"}},
           {"kind": "exact", "ulps": {"units": 2.5, "workloads": ["check_tail"], "reason": "r"}},
           {"kind": "exact", "ulps": {"units": 2, "workloads": [], "reason": "r"}},
           {"kind": "exact", "ulps": {"units": 2, "workloads": ["check_tail"], "reason": " "}}]
    for raw in bad:
        with pytest.raises(TaskError):
            read(raw)
    with pytest.raises(TaskError, match="ulps is defined for"):
        read({"kind": "exact", "ulps": {"units": 2, "workloads": ["check_tail"], "reason": "r"}},
             dtypes=("float8_e4m3fn",))


def test_a_derived_reduction_length_must_hold_in_every_workload():
    workloads = (Workload("smoke", "smoke", {"shape": [4, 5], "dim": 1}), Workload("bench", "bench", {"n": 3}))
    with pytest.raises(TaskError, match="shape/dim"):
        read({"kind": "allclose", "reduction_length": "shape/dim"}, workloads=workloads)
    contract = read({"kind": "allclose", "reduction_length": "shape/dim"}, workloads=workloads[:1])
    assert contract.allowance("float32", workloads[0]).length == 5.0
