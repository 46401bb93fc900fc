"""Typed, immutable task values: Task, Workload, Contract, Signature (DESIGN §2).

These are built from a task folder's metadata by `kbx.tasks.meta` without importing torch, so listing and
validating the suite stays cheap.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from kbx.tasks.accuracy import DERIVED_LENGTHS, REDUCED_BY_REDUCTION, Allowance, allowance

CATEGORIES: tuple[str, ...] = (
    "Activation",
    "Math",
    "Reduce",
    "Index",
    "Loss",
    "Normalization",
    "Pooling",
    "Random",
    "Optimizer",
    "SpatialOps",
    "Convolution",
    "MatrixMultiply",
    "LinearAlgebra",
    "Quantization",
    "Fusion",
)
"""KernelBenchX's fifteen categories, so results compare across the two suites."""

ARCHITECTURE = "Architecture"
"""The category of KernelBench's level-3 problems (whole networks), which the fifteen do not cover; only tasks read
from a KernelBench checkout (`kbx.tasks.kernelbench`) have it."""

ROLES: tuple[str, ...] = ("smoke", "check", "bench")
"""Workload roles: tiny for the interpreter, odd sizes straddling blocks, and sizes worth timing."""

CONTRACT_KINDS: tuple[str, ...] = ("allclose", "exact", "quantized", "property", "statistical")

FLOAT_EPS: Mapping[str, float] = MappingProxyType(
    {"float32": 2.0**-23, "float16": 2.0**-10, "bfloat16": 2.0**-7, "float64": 2.0**-52}
)
"""One ulp at 1.0 per floating dtype: no tolerance may be tighter than this."""

DTYPES: tuple[str, ...] = (*FLOAT_EPS, "int8", "int32", "int64", "bool")

DEFAULT_TOLERANCE: Mapping[str, tuple[float, float]] = MappingProxyType(
    {"float32": (1e-5, 1e-5), "float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1.6e-2), "float64": (1e-12, 1e-12)}
)
"""(atol, rtol) per dtype when a contract does not override them (DESIGN §2)."""


MATMUL_OPERATOR = "@"
"""The entry of a task's `forbidden` list that forbids the `@` operator outside kernels."""


def normalise_op(name: str) -> str:
    """How forbidden operation names compare: case- and underscore-blind, so `relu` also covers `relu_`, `ReLU` and
    `__relu__`, and `layer_norm` covers `LayerNorm`."""
    return name if name == MATMUL_OPERATOR else name.replace("_", "").lower()


@dataclass(frozen=True)
class Parameter:
    """One parameter of a task's entry point."""

    name: str
    """The parameter name; candidates must use the same one."""
    has_default: bool = False
    """Whether the parameter has a default value."""
    default: Any = None
    """The default value (a Python literal) when `has_default`."""

    def render(self) -> str:
        return f"{self.name}={self.default!r}" if self.has_default else self.name


@dataclass(frozen=True)
class Signature:
    """The parameters of `reference`, which every candidate's entry point must repeat exactly."""

    parameters: tuple[Parameter, ...]
    """Positional-or-keyword parameters, in order."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    def render(self) -> str:
        return "(" + ", ".join(p.render() for p in self.parameters) + ")"


@dataclass(frozen=True)
class ModuleInterface:
    """What a KernelBench candidate repeats: a class `ModelNew(nn.Module)` built with the arguments of the
    problem's `Model` and called with the arguments of its `forward` (`kbx.tasks.kernelbench`)."""

    init: tuple[str, ...]
    """The parameters of `Model.__init__` after `self`."""
    forward: Signature
    """The parameters of `Model.forward` after `self`."""

    CLASS = "ModelNew"
    """The name of the candidate's class."""
    INPUT = "model"
    """The input that carries a case's module, before the forward's arguments: `Model` in the trusted worker, the
    candidate's `ModelNew` with `Model`'s weights in the candidate worker."""


@dataclass(frozen=True)
class Workload:
    """Named concrete sizes with a role; `params` is what `make_inputs` reads."""

    name: str
    """Unique within the task, e.g. `check_tail`."""
    role: str
    """One of ROLES."""
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """JSON-like parameters (shapes, dims, flags) interpreted by the task's `make_inputs`."""
    min_gpu_gib: float | None = None
    """For a bench workload: the GPU memory (GiB, as torch reports the device's total) it is known to fit in; a GPU
    with less skips it and says so (`fit_to_gpu`). None: it fits any GPU kbx runs on."""
    timed: bool = True
    """For a bench workload: whether the performance stage times it. False for one that is there to be checked at a
    size (past 2^31 elements, where 32-bit offsets overflow), not timed: timed, its input sets on both sides and the
    candidate's outputs did not fit one H200 (leaky_relu, softmax, 2026-11-28)."""


@dataclass(frozen=True)
class Tolerance:
    """Elementwise allclose bounds: |out - ref| <= atol + rtol * |ref|."""

    atol: float
    rtol: float


_INDEXED = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)\[(?P<index>-?[0-9]+)\]")


PERTURBED_SUFFIX = "~p"
"""Appended to a workload's name for its copy with sizes drawn from the secret seed (`kbx.tasks.sizes.perturbed`)."""


def reduction_length_of(spec: str, params: Mapping[str, Any]) -> float:
    """The accumulation length a contract's `reduction_length` names in one workload's params: the number in
    parameter `spec`, entry i of the shape list in parameter `name` where `spec` is `"name[i]"`, or one of
    DERIVED_LENGTHS.

    Raises:
        KeyError: the parameter is missing.
        ValueError: the named value is not a number, or the index is out of the shape's range.
    """
    if spec in DERIVED_LENGTHS:
        return _derived_length(spec, params)
    indexed = _INDEXED.fullmatch(spec)
    value = params[indexed["name"]] if indexed else params[spec]
    if indexed:
        if not isinstance(value, (list, tuple)) or not -len(value) <= int(indexed["index"]) < len(value):
            raise ValueError(f"{spec}: {value!r} has no entry {indexed['index']}")
        value = value[int(indexed["index"])]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{spec} is {value!r}, not a number")
    return float(value)


def _derived_length(spec: str, params: Mapping[str, Any]) -> float:
    shape = params["shape"]
    if not isinstance(shape, (list, tuple)) or not all(isinstance(s, int) and not isinstance(s, bool) for s in shape):
        raise ValueError(f"{spec}: shape {shape!r} is not a list of ints")
    if spec == REDUCED_BY_REDUCTION:
        return float(math.prod(shape)) if params["reduction"] != "none" else 1.0
    dim = params.get("dim")
    # None and an empty list both reduce every dim, as torch's reductions do (`x.sum(dim=[])` is the total)
    dims = range(len(shape)) if dim in (None, [], ()) else [dim] if isinstance(dim, int) else dim
    if not isinstance(dims, (list, tuple, range)) or not all(
            isinstance(d, int) and not isinstance(d, bool) and -len(shape) <= d < len(shape) for d in dims):
        raise ValueError(f"{spec}: dim {dim!r} does not name dims of shape {shape!r}")
    return float(math.prod(shape[d] for d in {d % len(shape) for d in dims}))


@dataclass(frozen=True)
class Contract:
    """How candidate outputs are compared with reference outputs."""

    kind: str
    """One of CONTRACT_KINDS. Integer and boolean outputs are always compared exactly."""
    tolerances: Mapping[str, Tolerance]
    """Per task dtype, defaults already filled in (used by `allclose`)."""
    reduction_length: str | None = None
    """Workload parameter holding the accumulation length n (of a reduction, a dot product, a scan), or one entry of
    a shape parameter (`"input[-1]"`: the last dimension of `input`; `reduction_length_of`): the truth rule's
    allowance grows with its square root, and so does atol where outputs are judged against the reference."""
    tf32: bool = False
    """Whether fp32 dot products may use tf32 (tolerances must then allow it)."""
    tensor_cores: bool = False
    """For `allclose`: whether the accumulation is a matrix product honest kernels run on tensor cores (`tl.dot`,
    mma) for 16-bit outputs (and TF32): the truth rule's perturbation then also grows linearly with n, as a
    truncating accumulator's errors do (`kbx.tasks.accuracy.Rule.backward_truncation`)."""
    bound: float | None = None
    """For `quantized`: the largest allowed RMS(out - ref) / RMS(ref) (the largest of `bounds`, where given)."""
    bounds: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    """For `quantized`: the bound of each dtype, where they differ (`bound_for`)."""
    second_opinion: bool = True
    """For `exact`: whether a value mismatch may be judged again against the reference run in float64
    (`kbx.evaluation.trusted.compare.second_opinion`); False for references whose meaning depends on the dtype (e.g. the
    dtype's largest value as a default)."""
    accumulation_dtype: str = "float32"
    """For `allclose`: the dtype honest kernels accumulate in (one of `kbx.tasks.accuracy.ACCUMULATION_DTYPES`); its
    unit roundoff, scaled by the accumulation length (`reduction_length`), sizes the rule's allowance."""
    against_reference: str = ""
    """For `allclose`: why outputs are judged against the reference with `tolerances` rather than against the
    float64 truth (`kbx.tasks.accuracy`): the reference has no float64 path, or the contract allows a precision the
    reference does not use (TF32); empty for the truth rule."""
    perturbed_truth: bool = True
    """For `allclose`: whether each element may carry c times the truth's response to perturbed inputs (P in
    `kbx.tasks.accuracy`); False for an operation with steps (a rounding mode, a comparison), where a perturbation
    crossing a step moves an element by a whole step, or one that ignores a shift of its inputs fed inputs offset far
    from 0 (log_softmax), where moving each input by a few ulps of itself overstates what an honest kernel loses."""
    insensitive: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Check workload name -> why more than 1 % of its output elements would pass with a 50 % error (written in
    TASK as `{"workloads": [...], "reason": "..."}`; the suite's sensitivity test fails on any other)."""
    absolute_units: float = 0.0
    """For `allclose`: an absolute error every element may also make, in units of u_acc (0: none). For an operation
    whose textbook formula cancels where PyTorch calls an accurate function (alpha (exp(x) - 1) against expm1,
    log(1 + exp(x)) against log1p): the formula, honest, loses u_acc times its intermediate's size (about 1) on
    outputs far smaller (written in TASK as `{"units": N, "reason": "..."}`)."""
    absolute_reason: str = ""
    """Why the contract has `absolute_units` (the formula that cancels), rendered with the rule."""
    ulps: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    """For `exact`: workload name -> how many ulps of the output dtype a floating-point element may be off by there
    (written in TASK as `{"units": N, "workloads": [...], "reason": "..."}`). For results defined by a chain of
    IEEE operations where an honest kernel's compiler may use a faithful but not correctly rounded one: Triton
    compiles fp32 `/` to `div.full.f32` (2 ulps), so round(x, 2)'s division lands an ulp off."""
    ulps_reason: str = ""
    """Why the contract has `ulps`, rendered with it."""
    rounded_inputs: tuple[str, ...] = ()
    """For `allclose`: inputs an honest kernel may scale and round to the task dtype once before it uses them (written
    in TASK as `{"inputs": [...], "reason": "..."}`): the truth's perturbed runs move them by u_out of the case's
    dtype rather than by the rule's u_acc step. For attention, which folds the softmax scale into q (and k) and
    rounds q * scale back to fp16 or bf16, as Triton's fused-attention tutorial and PyTorch's math backend on a GPU
    do: every score then moves by up to u_out of itself, a perturbation of the input by u_out."""
    rounded_reason: str = ""
    """Why the contract has `rounded_inputs`, rendered with the rule."""

    def ulps_for(self, workload: Workload) -> int:
        """The ulps an element of `workload` (or of its perturbed copy) may be off by: 0 unless `ulps` names it."""
        return self.ulps.get(workload.name.removesuffix(PERTURBED_SUFFIX), 0)

    @property
    def against_truth(self) -> bool:
        """Whether floating-point outputs are judged against the float64 truth (`kbx.tasks.accuracy`)."""
        return self.kind == "allclose" and not self.against_reference

    def allowance(self, output_dtype: str, workload: Workload) -> Allowance:
        """The truth rule's numbers for an output of `output_dtype` in one workload."""
        length = reduction_length_of(self.reduction_length, workload.params) if self.reduction_length else 1.0
        return allowance(self.accumulation_dtype, self.tf32, length, output_dtype, tensor_cores=self.tensor_cores,
                         absolute_units=self.absolute_units)

    def bound_for(self, dtype: str) -> float:
        """For `quantized`: the largest allowed RMS(out - ref) / RMS(ref) of outputs in `dtype`."""
        bound = self.bounds.get(dtype, self.bound)
        assert bound is not None, "a quantized contract has a bound"
        return bound

    def tolerance(self, dtype: str, workload: Workload) -> Tolerance:
        """The allclose bounds for one dtype and workload, widened for long reductions."""
        base = self.tolerances[dtype]
        if self.reduction_length is None:
            return base
        length = reduction_length_of(self.reduction_length, workload.params)
        return Tolerance(atol=base.atol * math.sqrt(max(length, 1.0)), rtol=base.rtol)


@dataclass(frozen=True)
class Task:
    """A benchmark task: everything about it that can be known without importing its code."""

    name: str
    """Task and entry-point name, e.g. `gelu`."""
    category: str
    """One of CATEGORIES, or ARCHITECTURE for a KernelBench level-3 problem."""
    level: int
    """1 single op, 2 fusion, 3 architecture."""
    description: str
    """The task module's docstring."""
    signature: Signature
    """Parameters of the reference, repeated by candidates."""
    dtypes: tuple[str, ...]
    """Dtypes every workload is evaluated in."""
    contract: Contract
    """The numerical contract."""
    workloads: tuple[Workload, ...]
    """All workloads, every role."""
    path: Path
    """The task folder, or a KernelBench problem's file."""
    version: str
    """Hash of task.py (evaluations depend on nothing else in the folder), or of a KernelBench problem's file and
    the rules that read it."""
    reference_source: str
    """Source of the `reference` function, for prompts and `kbx tasks show`."""
    forbidden: tuple[str, ...] = ()
    """Operations whose PyTorch (or other library) implementation would do the task's core work, e.g.
    `("relu", "clamp", ...)`, and `"@"` for the matmul operator; a candidate that uses one is REJECTED_STATIC.
    Matched case- and underscore-blind (`relu` covers `relu_`, `ReLU`)."""
    input_ranges: Mapping[str, tuple[float, float]] = field(default_factory=lambda: MappingProxyType({}))
    """Closed intervals that named floating-point inputs must stay in for the reference to run at all (e.g. the
    probabilities of `bernoulli` in [0, 1]): the timing stage's value refresh (`kbx.timing.refresh`), which scales
    every input by factors near 1 before each timed call, clamps these back into their interval."""
    defaults_kept: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Parameters of the signature that keep their default in every workload, each with the reason a non-default
    value makes no sense for this task (`TASK["defaults_kept"]`); every other parameter with a default takes
    another value in at least one smoke or check workload (`tests/suite/test_parameters.py`)."""
    perturb_source: str = ""
    """Source of the task's optional `perturb(workload, rng)`, which moves a check workload's sizes (run by
    `kbx.tasks.sizes` from this source alone); empty when the task has none."""
    module: ModuleInterface | None = None
    """For a KernelBench problem, the class its candidates define (`ModelNew`); None for a kbx task, whose
    candidates define a function named like the task with `signature`."""
    baseline_source: str = ""
    """Source of the task's optional `baseline(...)` (the parameters of `reference`): the implementation timed as
    the eager baseline, and compiled for the torch.compile one, where `reference` is a clear definition that no
    one would run for speed (`kbx.tasks.baseline`); empty when the reference itself is timed."""
    uncompetitive_baseline: str = ""
    """Why the task's timed baseline is not a competitive implementation (`TASK["uncompetitive_baseline"]`): reports
    then show every geometric mean of speedups with and without such tasks. Empty when it is competitive."""

    @property
    def perturbs(self) -> bool:
        """Whether each run adds perturbed copies of the check workloads."""
        return bool(self.perturb_source)

    @property
    def entry_point(self) -> str:
        """What a candidate must define: the task's function, or `ModelNew` for a KernelBench problem."""
        return self.name if self.module is None else ModuleInterface.CLASS

    @property
    def task_file(self) -> Path:
        """The file whose code makes inputs and reference outputs: task.py, or the KernelBench problem itself."""
        return self.path / "task.py" if self.module is None else self.path

    @property
    def solution_file(self) -> Path:
        return self.path / "solution.py"

    def wrong_files(self) -> list[Path]:
        return sorted((self.path / "wrong").glob("*.py"))

    def timed_workloads(self) -> tuple[Workload, ...]:
        """The bench workloads the performance stage times (`Workload.timed`)."""
        return tuple(w for w in self.workloads_for(("bench",)) if w.timed)

    def honest_files(self) -> list[Path]:
        """Honest kernels written as third parties write them (textbook formulas): each must pass, as the solution
        does (`kbx.tasks.suite_check`)."""
        return sorted((self.path / "honest").glob("*.py"))

    def fit_to_gpu(self, memory_bytes: int | None) -> tuple[Task, tuple[str, ...]]:
        """This task without the workloads that need more GPU memory than `memory_bytes` (None: unknown, none
        left out), and the names of those left out."""
        if memory_bytes is None:
            return self, ()
        left = tuple(w.name for w in self.workloads
                     if w.min_gpu_gib is not None and w.min_gpu_gib * 2**30 > memory_bytes)
        if not left:
            return self, ()
        return replace(self, workloads=tuple(w for w in self.workloads if w.name not in left)), left

    def workloads_for(self, roles: tuple[str, ...]) -> tuple[Workload, ...]:
        return tuple(w for w in self.workloads if w.role in roles)

    def workload(self, name: str) -> Workload:
        for w in self.workloads:
            if w.name == name:
                return w
        raise KeyError(f"task {self.name} has no workload {name!r}")
