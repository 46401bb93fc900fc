"""The acceptance rule for floating-point outputs, judged against a float64 truth (DESIGN §2, docs/evaluation.md).

An `allclose` contract with a float64 path judges each floating-point output `o` against the truth `t` (the
reference run on float64 copies of its inputs) and against the eager reference's own error `e - t`:

- normwise: ||o - t|| <= k ||e - t|| + (u_out + u_acc (a + b sqrt(n))) ||t|| + c ||P||, the 2-norm over the
  elements where the reference and the truth are finite;
- per element: |o - t| <= 4 ulp_out(t) + u_acc (A + B sqrt(n)) |t| + K s E(|t|) + c P + 2^-126, where P is how far
  the truth moves when every input element and float argument is moved by u_acc (8 + 2 sqrt(n)) of itself at
  random, E(m) the largest error beyond its own rounding to the output dtype that the eager reference makes on an
  element of m's binade or the 4 below it (over at least 64 elements, else over every smaller one), and
  s = ||o - t|| / ||e - t|| held within [1, k].

The eager reference is a yardstick only where it keeps to the contract itself: where ||e - t|| is more than
16 times the rest of the normwise bound, the case is judged as if e were the truth rounded to the output dtype
(E = 0, ||e - t|| the norm of that rounding; `Rule.yardstick_factor`).

u_out is the unit roundoff of the output's dtype (half its ulp at 1), ulp_out(t) the spacing of that dtype at t
(subnormals included), u_acc the unit roundoff of the contract's accumulation dtype and n its accumulation length.
This module holds the constants and the per-case numbers, without torch, so contracts can be validated and rendered
anywhere; `kbx.evaluation.trusted.against_truth` applies them to tensors.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

UNIT_ROUNDOFF: Mapping[str, float] = MappingProxyType(
    {"float64": 2.0**-53, "float32": 2.0**-24, "tfloat32": 2.0**-11, "float16": 2.0**-11, "bfloat16": 2.0**-8}
)
"""Half an ulp at 1.0: the largest relative error of rounding to nearest in each dtype."""

MANTISSA_BITS: Mapping[str, int] = MappingProxyType({"float64": 53, "float32": 24, "float16": 11, "bfloat16": 8})
"""Significand bits, the implicit one included."""

MIN_EXPONENT: Mapping[str, int] = MappingProxyType({"float64": -1022, "float32": -126, "float16": -14,
                                                   "bfloat16": -126})
"""The smallest normal number of each dtype is 2 ** MIN_EXPONENT; below it the spacing stays that of this binade."""

ACCUMULATION_DTYPES: tuple[str, ...] = ("float32", "float64")
"""Dtypes a contract may name as the one honest kernels accumulate in."""

TENSOR_CORE_DTYPES: tuple[str, ...] = ("float16", "bfloat16")
"""Output dtypes whose products honest kernels run on tensor cores (fp32 ones too where TF32 is allowed)."""

FLUSH_FLOOR = 2.0**-126
"""The smallest normal float32: GPUs may flush results below it to zero, so no element is held closer than this."""


@dataclass(frozen=True)
class Rule:
    """The rule's constants, chosen from measurements of honest kernels (docs/evaluation.md, "Calibration")."""

    norm_factor: float = 4.0
    """k: how many times the eager reference's normwise error a candidate may make."""
    norm_arithmetic: float = 128.0
    """a: the normwise floor's allowance for arithmetic and function approximations, in units of u_acc."""
    norm_accumulation: float = 2.0
    """b: the normwise floor's allowance per sqrt(accumulation length), in units of u_acc."""
    element_ulps: float = 4.0
    """Ulps of the output dtype every element may be off by: a faithful rounding of the truth (1), and an
    intermediate kept in the task dtype before a square or a product, as PyTorch's bf16 ops keep `input - target`
    (smooth_l1_loss's solution does so, and lands 1.9 ulps from the truth where the CPU's eager is exact)."""
    element_factor: float = 4.0
    """K: how many times the eager reference's worst error on elements of the same size an element may make."""
    element_reach: int = 4
    """E(m) covers the elements of m's binade and of this many binades below (down to m/16)."""
    element_sample: int = 64
    """E(m) covers at least this many of the smallest elements (a quarter of them in outputs under 256), so an
    element of a sparse lowest binade (where a sum cancels) is not held to the reference's luck on one or two."""
    element_arithmetic: float = 1024.0
    """A: each element's allowance for arithmetic and function approximations, in units of u_acc."""
    element_accumulation: float = 16.0
    """B: each element's allowance per sqrt(accumulation length), in units of u_acc."""
    yardstick_factor: float = 16.0
    """The eager reference is a yardstick (k, K and E above) only where its normwise error is within this many times
    what the rule allows without it (the floor, c ||P||): beyond, it is outside the contract it states, and a case
    is judged by the contract's numbers alone (`kbx.evaluation.trusted.against_truth.standing`). On the CPU every
    smoke and check case of the suite is within 3.3 times (bf16 losses, whose eager reference computes in bf16;
    `scripts/yardstick_audit.py`, 2026-11-29); PyTorch's CUDA bf16 cumsum along an outer dim is hundreds of times
    past it."""
    backward_factor: float = 2.0
    """c: how many times the truth's response to perturbed inputs an element may be off by."""
    backward_arithmetic: float = 8.0
    """The perturbation: every floating-point input element moved by u_acc (this + backward_accumulation
    sqrt(n)) of itself, up or down at random (in a few runs that move any two inputs together once and apart once,
    the largest response kept): what a backward-stable kernel at u_acc may do, so ill-conditioned elements (a sum
    that cancels, x * scale + shift near 0) get the slack it needs."""
    backward_accumulation: float = 2.0
    """The perturbation's growth per sqrt(accumulation length), in units of u_acc."""
    backward_truncation: float = 0.125
    """Its growth per unit of accumulation length, in units of u_acc, where the products may run on tensor cores
    (`Contract.tensor_cores`, outputs of 16 bits or TF32): a tensor core adds into its fp32 accumulator by
    truncation, so the errors of one sign add up, linearly in n, not as a random walk (docs/evaluation.md)."""


RULE = Rule()

REDUCED_BY_DIM = "shape/dim"
"""A `reduction_length` derived from the params: the product of `shape` over the dims `dim` names (an int, a list,
or None, absent or an empty list for every dim), the number of input elements behind each output of a reduction."""

REDUCED_BY_REDUCTION = "shape/reduction"
"""A `reduction_length` derived from the params of a loss: every element of `shape` where `reduction` sums or
averages them (any value but "none"), else 1."""

DERIVED_LENGTHS = {
    REDUCED_BY_DIM: "the number of input elements reduced into each output (the product of `shape` over `dim`)",
    REDUCED_BY_REDUCTION: "the number of elements of `shape` where `reduction` is not \"none\", else 1",
}
"""The derived `reduction_length` specs, each with how a prompt names it."""


@dataclass(frozen=True)
class Allowance:
    """The rule's numbers for one output dtype under one contract and workload."""

    dtype: str
    """The output's dtype name."""
    unit_roundoff: float
    """u_out."""
    accumulation: float
    """u_acc: the unit roundoff of the accumulation dtype (of tf32 where the contract allows it)."""
    length: float
    """n: the accumulation length (1 when the contract names none)."""
    rule: Rule = RULE
    truncating: bool = False
    """Whether honest kernels may accumulate by truncation (products on tensor cores)."""
    absolute: float = 0.0
    """An absolute error every element may also make (the contract's `absolute_units` times u_acc; 0: none)."""

    @property
    def norm_floor(self) -> float:
        """The normwise floor relative to ||t||: what a kernel may lose even where the eager reference is exact."""
        r = self.rule
        spread = r.norm_arithmetic + r.norm_accumulation * math.sqrt(self.length)
        return self.unit_roundoff + self.accumulation * spread

    @property
    def element_relative(self) -> float:
        """Each element's allowance relative to |t|, beyond its ulps and the eager reference's errors."""
        r = self.rule
        return self.accumulation * (r.element_arithmetic + r.element_accumulation * math.sqrt(self.length))

    @property
    def backward_delta(self) -> float:
        """The relative size of the input perturbations whose effect on the truth each element may carry."""
        r = self.rule
        truncation = r.backward_truncation * self.length if self.truncating else 0.0
        return self.accumulation * (r.backward_arithmetic + r.backward_accumulation * math.sqrt(self.length)
                                    + truncation)

    @property
    def mantissa_bits(self) -> int:
        return MANTISSA_BITS[self.dtype]

    @property
    def min_exponent(self) -> int:
        return MIN_EXPONENT[self.dtype]


def allowance(accumulation_dtype: str, tf32: bool, length: float, output_dtype: str, rule: Rule = RULE,
              tensor_cores: bool = False, absolute_units: float = 0.0) -> Allowance:
    """The rule's numbers for an output of `output_dtype` (a float dtype name) when honest kernels accumulate in
    `accumulation_dtype` (or in tf32 where `tf32`) over `length` terms, on tensor cores where `tensor_cores` and the
    output has 16 bits or `tf32`; every element may be off by `absolute_units` u_acc besides."""
    accumulation = UNIT_ROUNDOFF[accumulation_dtype]
    if tf32:
        accumulation = max(accumulation, UNIT_ROUNDOFF["tfloat32"])
    truncating = tensor_cores and (tf32 or output_dtype in TENSOR_CORE_DTYPES)
    return Allowance(output_dtype, UNIT_ROUNDOFF[output_dtype], accumulation, max(float(length), 1.0), rule,
                     truncating, absolute_units * accumulation)


def _length_words(length_param: str | None) -> str:
    """How the rule's n reads in a prompt: 1, a workload parameter, or a length derived from the params."""
    if not length_param:
        return "1"
    return DERIVED_LENGTHS.get(length_param, f"the workload's `{length_param}`")


def rule_lines(accumulation_dtype: str, tf32: bool, length_param: str | None, dtypes: tuple[str, ...],
               rule: Rule = RULE, tensor_cores: bool = False) -> list[str]:
    """The rule in words and numbers, for prompts and `kbx tasks show`."""
    n = _length_words(length_param)
    acc = f"{accumulation_dtype} (tf32 products allowed)" if tf32 else accumulation_dtype
    on = " or TF32" if tf32 else ""
    truncation = (f" (+ {rule.backward_truncation:g} * n for {'/'.join(TENSOR_CORE_DTYPES)}{on} outputs, whose "
                  "products may run on tensor cores, which accumulate by truncation)") if tensor_cores else ""
    lines = [
        "judged against a float64 truth: the reference run on float64 copies of the inputs",
        f"accumulation dtype: {acc}; accumulation length n = {n}",
        f"normwise: ||out - truth||_2 <= {rule.norm_factor:g} * ||ref - truth||_2 + (u_out + u_acc * "
        f"({rule.norm_arithmetic:g} + {rule.norm_accumulation:g} * sqrt(n))) * ||truth||_2 + "
        f"{rule.backward_factor:g} * ||P||_2, where ref is the PyTorch reference at the task dtype and P how far "
        f"each output of the truth moves when every input element and float argument is moved by u_acc * "
        f"({rule.backward_arithmetic:g} + {rule.backward_accumulation:g} * sqrt(n)){truncation} of itself, up or "
        "down at random",
        f"every element: |out - truth| <= {rule.element_ulps:g} ulp_out(truth) + u_acc * ({rule.element_arithmetic:g}"
        f" + {rule.element_accumulation:g} * sqrt(n)) * |truth| + {rule.element_factor:g} * s * E(|truth|) + "
        f"{rule.backward_factor:g} * P + 2^-126, where E(m) is the reference's largest error beyond its own "
        "rounding on elements between "
        f"m/2^{rule.element_reach + 1} and 2m (over at least {rule.element_sample} elements) and "
        f"s = ||out - truth|| / ||ref - truth|| held within [1, {rule.norm_factor:g}]: tiny values are held to "
        "their own size, and a few wrong elements fail",
        f"where ||ref - truth||_2 exceeds {rule.yardstick_factor:g} times the rest of the normwise bound, the "
        "reference breaks the contract itself: ref is then taken as the truth rounded to the output dtype (E = 0)",
        "u_acc = " + _roundoff(accumulation_dtype, tf32) + "; u_out = " + ", ".join(
            f"{UNIT_ROUNDOFF[d]:.3g} ({d})" for d in dtypes if d in UNIT_ROUNDOFF),
        "NaN must match NaN and an infinity the same infinity; a non-finite value where the reference is finite fails",
    ]
    return lines


def _roundoff(accumulation_dtype: str, tf32: bool) -> str:
    u = max(UNIT_ROUNDOFF[accumulation_dtype], UNIT_ROUNDOFF["tfloat32"] if tf32 else 0.0)
    return f"{u:.3g}"
