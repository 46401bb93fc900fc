"""A task's numerical contract, read from the `contract` dict of its task.py (`kbx.tasks.meta`): the kind, the
tolerances, and for an allclose contract the float64 truth rule's fields and their exceptions."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from kbx.errors import TaskError
from kbx.tasks.accuracy import ACCUMULATION_DTYPES, MANTISSA_BITS
from kbx.tasks.spec import (
    CONTRACT_KINDS,
    DEFAULT_TOLERANCE,
    FLOAT_EPS,
    Contract,
    Tolerance,
    Workload,
    reduction_length_of,
)

_ALLCLOSE_KEYS = {"accumulation_dtype", "against_reference", "insensitive", "perturbed_truth", "tensor_cores",
                  "absolute", "rounded_inputs"}
"""Contract keys only an `allclose` contract may hold (the float64 truth rule and its exceptions)."""
_CONTRACT_KEYS = {"kind", "tolerance", "reduction_length", "tf32", "bound", "second_opinion", "ulps"} | _ALLCLOSE_KEYS

def read_contract(raw: object, dtypes: tuple[str, ...], workloads: tuple[Workload, ...],
                  fail: Callable[[str], TaskError]) -> Contract:
    """A task's `contract` dict as a `Contract`, validated; `fail(problem)` makes the error to raise."""
    if not isinstance(raw, dict) or raw.get("kind") not in CONTRACT_KINDS:
        raise fail(f"contract must be a dict whose kind is one of {CONTRACT_KINDS}")
    if raw.keys() - _CONTRACT_KEYS:
        raise fail(f"contract has unknown keys {', '.join(sorted(raw.keys() - _CONTRACT_KEYS))}")
    overrides = raw.get("tolerance", {})
    tolerances = {}
    for dtype in dtypes:
        if dtype not in FLOAT_EPS:
            continue
        atol, rtol = overrides.get(dtype, DEFAULT_TOLERANCE[dtype])
        if atol < 0 or rtol < FLOAT_EPS[dtype]:
            raise fail(f"{dtype} tolerance ({atol}, {rtol}) is tighter than one ulp ({FLOAT_EPS[dtype]:.3g})")
        tolerances[dtype] = Tolerance(float(atol), float(rtol))
    if set(overrides) - set(dtypes):
        raise fail(f"tolerance given for dtypes the task lacks: {sorted(set(overrides) - set(dtypes))}")
    length = raw.get("reduction_length")
    if length is not None:
        _check_length(length, workloads, fail)
    bound, bounds = _bounds(raw, dtypes, fail)
    if "second_opinion" in raw and raw["kind"] != "exact":
        raise fail("second_opinion applies to exact contracts only (allclose ones are judged against the "
                        "float64 truth already)")
    if "ulps" in raw and raw["kind"] != "exact":
        raise fail("ulps applies to exact contracts only")
    others = sorted(set(dtypes) - set(MANTISSA_BITS))
    if "ulps" in raw and others:
        raise fail(f"ulps is defined for {', '.join(MANTISSA_BITS)} outputs, not {others}")
    return Contract(
        kind=raw["kind"],
        tolerances=MappingProxyType(tolerances),
        reduction_length=length,
        tf32=bool(raw.get("tf32", False)),
        bound=bound,
        bounds=MappingProxyType(bounds),
        second_opinion=bool(raw.get("second_opinion", True)),
        **_ulps(raw.get("ulps"), workloads, fail),
        **_truth_fields(raw, workloads, fail),
    )

def _bounds(raw: dict[str, Any], dtypes: Sequence[str], fail: Callable[[str], TaskError]
            ) -> tuple[float | None, dict[str, float]]:
    """A quantized contract's bound, the largest of them, and the per-dtype ones: one number, or one per dtype
    (`{"float16": 1e-3, "bfloat16": 1e-2}`) where the dtypes' honest errors differ by more than a wrong kernel's
    margin."""
    bound = raw.get("bound")
    if raw["kind"] != "quantized":
        return bound, {}
    bounds = dict(bound) if isinstance(bound, dict) else {}
    if bounds and set(bounds) != set(dtypes):
        raise fail(f"a quantized contract's bounds must name every dtype of the task, {sorted(dtypes)}")
    values = list(bounds.values()) if bounds else [bound]
    if not all(isinstance(v, float) and 0 < v < 1 for v in values):
        raise fail("a quantized contract needs a bound in (0, 1), or one per dtype: the largest RMS(out-ref)/RMS(ref)")
    return max(values), bounds


def _check_length(length: object, workloads: tuple[Workload, ...], fail: Callable[[str], TaskError]) -> None:
    """Fails unless `length` names a number (a parameter, or an entry of a shape parameter) in every workload."""
    if not isinstance(length, str):
        raise fail(f"reduction_length must name a workload parameter, not {length!r}")
    for workload in workloads:
        try:
            reduction_length_of(length, workload.params)
        except (KeyError, ValueError) as exc:
            raise fail(f"reduction_length {length!r} is not a number in workload {workload.name!r}: {exc}") from None

def _truth_fields(raw: dict[str, Any], workloads: tuple[Workload, ...], fail: Callable[[str], TaskError]
                  ) -> dict[str, Any]:
    """The allclose-only keys: accumulation_dtype, against_reference (a reason), perturbed_truth, tensor_cores,
    insensitive (check workload name -> reason), absolute (units of u_acc and a reason) and rounded_inputs (input
    names and a reason), validated."""
    present = _ALLCLOSE_KEYS & raw.keys()
    if present and raw["kind"] != "allclose":
        raise fail(f"{', '.join(sorted(present))} apply to allclose contracts only")
    accumulation = raw.get("accumulation_dtype", "float32")
    if accumulation not in ACCUMULATION_DTYPES:
        raise fail(f"accumulation_dtype must be one of {', '.join(ACCUMULATION_DTYPES)}, not {accumulation!r}")
    reason = raw.get("against_reference", "")
    if not isinstance(reason, str) or ("against_reference" in raw and not reason.strip()):
        raise fail("against_reference must say why outputs are judged against the reference rather than the "
                        "float64 truth (a non-empty string)")
    perturbed, tensor_cores = raw.get("perturbed_truth", True), raw.get("tensor_cores", False)
    if not isinstance(perturbed, bool) or not isinstance(tensor_cores, bool):
        raise fail("perturbed_truth and tensor_cores must be true or false")
    if tensor_cores and raw.get("reduction_length") is None:
        raise fail("tensor_cores needs the reduction_length its allowance grows with")
    return {"accumulation_dtype": accumulation, "against_reference": reason, "perturbed_truth": perturbed,
            "tensor_cores": tensor_cores, "insensitive": _insensitive(raw.get("insensitive"), workloads, fail),
            **_absolute(raw.get("absolute"), fail), **_rounded(raw.get("rounded_inputs"), fail)}

def _absolute(raw: object, fail: Callable[[str], TaskError]) -> dict[str, Any]:
    """`{"units": N, "reason": "..."}` (N > 0 units of u_acc) as the Contract's absolute_units and absolute_reason."""
    if raw is None:
        return {}
    if not (isinstance(raw, dict) and raw.keys() == {"units", "reason"} and isinstance(raw["reason"], str)
            and raw["reason"].strip() and isinstance(raw["units"], (int, float)) and 0 < raw["units"] <= 256):
        raise fail('absolute must be {"units": N in (0, 256] units of u_acc, "reason": "why"}')
    return {"absolute_units": float(raw["units"]), "absolute_reason": raw["reason"].strip()}

def _rounded(raw: object, fail: Callable[[str], TaskError]) -> dict[str, Any]:
    """`{"inputs": [input names], "reason": "..."}` as the Contract's rounded_inputs and rounded_reason."""
    if raw is None:
        return {}
    if not (isinstance(raw, dict) and raw.keys() == {"inputs", "reason"} and isinstance(raw["reason"], str)
            and raw["reason"].strip() and isinstance(raw["inputs"], list) and raw["inputs"]
            and all(isinstance(name, str) and name for name in raw["inputs"])):
        raise fail('rounded_inputs must be {"inputs": [input names], "reason": "why"}')
    return {"rounded_inputs": tuple(raw["inputs"]), "rounded_reason": raw["reason"].strip()}

def _ulps(raw: object, workloads: tuple[Workload, ...], fail: Callable[[str], TaskError]) -> dict[str, Any]:
    """`{"units": N, "workloads": [names], "reason": "..."}` (N in 1..16 ulps) as the Contract's ulps and
    ulps_reason."""
    if raw is None:
        return {}
    if not (isinstance(raw, dict) and raw.keys() == {"units", "workloads", "reason"} and isinstance(raw["reason"], str)
            and raw["reason"].strip() and isinstance(raw["units"], int) and not isinstance(raw["units"], bool)
            and 1 <= raw["units"] <= 16 and isinstance(raw["workloads"], list) and raw["workloads"]):
        raise fail('ulps must be {"units": N in 1..16, "workloads": [workload names], "reason": "why"}')
    unknown = set(raw["workloads"]) - {w.name for w in workloads}
    if unknown:
        raise fail(f"ulps names {', '.join(sorted(map(str, unknown)))}, not workloads of the task")
    return {"ulps": MappingProxyType({name: raw["units"] for name in raw["workloads"]}),
            "ulps_reason": raw["reason"].strip()}

def _insensitive(raw: object, workloads: tuple[Workload, ...], fail: Callable[[str], TaskError]) -> Mapping[str, str]:
    """`{"workloads": [check workload names], "reason": "..."}` as workload name -> reason."""
    if raw is None:
        return MappingProxyType({})
    if not (isinstance(raw, dict) and raw.keys() == {"workloads", "reason"} and isinstance(raw["reason"], str)
            and raw["reason"].strip() and isinstance(raw["workloads"], list) and raw["workloads"]):
        raise fail('insensitive must be {"workloads": [check workload names], "reason": "why"}')
    unknown = set(raw["workloads"]) - {w.name for w in workloads if w.role == "check"}
    if unknown:
        raise fail(f"insensitive names {', '.join(sorted(map(str, unknown)))}, not check workloads")
    return MappingProxyType({name: raw["reason"] for name in raw["workloads"]})
