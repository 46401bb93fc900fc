"""Compare candidate outputs with reference outputs under a task's numerical contract (DESIGN §2).

This is the one comparison module. It runs only in the trusted worker; candidate code never sees it.
Values are compared in float64, chunk by chunk, so memory stays bounded whatever the output size. Floating-point
outputs of an `allclose` contract are judged against the float64 truth by `kbx.evaluation.trusted.against_truth`,
given their bases; everything else (and an allclose contract whose truth is missing) is judged here.
A mismatch report says how many elements differ, where the first ones are, and the worst errors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import torch

from kbx.evaluation.trusted.against_truth import Basis, judge_output, ulp
from kbx.evaluation.trusted.mismatches import note_first, unravel
from kbx.evaluation.verdict import Comparison, Mismatch
from kbx.status import Status
from kbx.tasks.accuracy import MANTISSA_BITS, MIN_EXPONENT
from kbx.tasks.inputs import dtype_name
from kbx.tasks.spec import Contract, Tolerance, Workload

_CHUNK = 1 << 24
"""Elements compared at once: about 1 GiB of float64 temporaries."""


def compare(
    got: Any, expected: Sequence[torch.Tensor], contract: Contract, dtype: str, workload: Workload,
    bases: Sequence[Basis] | None = None,
) -> list[Comparison]:
    """Compare a candidate's return value with the reference outputs, one Comparison per output.

    Args:
        got: what the candidate returned (a tensor, or a tuple/list of tensors).
        expected: the reference outputs, flattened to a list.
        contract: the task's numerical contract.
        dtype: the task dtype of this case (selects the tolerance).
        workload: the workload of this case (may widen the tolerance).
        bases: for a contract judged against the float64 truth, each output's basis
            (`kbx.evaluation.trusted.against_truth`); None where the truth could not be computed, which leaves
            the contract's tolerances against the reference.
    """
    outputs = _as_list(got)
    if len(outputs) != len(expected):
        return [Comparison(Status.WRONG_SHAPE, f"returned {len(outputs)} outputs, expected {len(expected)}")]
    per_output = list(bases) if bases is not None and contract.against_truth else [None] * len(expected)
    return [compare_tensor(out, ref, contract, dtype, workload, base)
            for out, ref, base in zip(outputs, expected, per_output)]


TASK_CHECKED = ("property", "statistical")
"""Contract kinds whose values are judged by the task's own `check_outputs`, not element by element."""


def judge(
    got: Any, expected: Sequence[torch.Tensor], inputs: dict[str, Any] | None, code: Any, contract: Contract,
    dtype: str, workload: Workload, bases: Sequence[Basis] | None = None,
) -> list[Comparison]:
    """Compare by the contract: element-wise (`compare`, against the float64 truth where `bases` are given), or for
    property and statistical contracts, outputs of the reference's count, shapes and dtypes, finite where the
    reference is, then the task's `check_outputs(outputs, inputs, expected, workload, dtype)`, which returns None
    or why the outputs fail."""
    if contract.kind not in TASK_CHECKED:
        return compare(got, expected, contract, dtype, workload, bases)
    outputs = _as_list(got)
    if len(outputs) != len(expected):
        return [Comparison(Status.WRONG_SHAPE, f"returned {len(outputs)} outputs, expected {len(expected)}")]
    for index, (out, ref) in enumerate(zip(outputs, expected)):
        problem = _structure(out, ref)
        if problem is not None:
            return [replace(problem, message=f"output {index}: {problem.message}")]
    try:
        why = code.check_outputs(outputs=outputs, inputs=inputs, expected=list(expected), workload=workload,
                                 dtype=dtype)
    except Exception as exc:  # outputs the task's check cannot digest are outputs that fail it
        why = f"the {contract.kind} check could not process the outputs: {type(exc).__name__}: {str(exc)[:200]}"
    if why:
        return [Comparison(Status.MISMATCH, f"{contract.kind} check: {why}", total=sum(r.numel() for r in expected))]
    return [Comparison(Status.PASSED, total=sum(r.numel() for r in expected))]


def kernelbench_judge(got: Any, expected: Sequence[torch.Tensor], dtype: str, atol: float, rtol: float
                      ) -> list[Comparison]:
    """KernelBench's rule on one case (`kbx.kernelbench_rule`): each output a tensor of the reference's
    shape and dtype (torch.allclose raises on two dtypes, and KernelBench fails an exception), and
    `torch.allclose(out, ref, atol, rtol)`: every element within atol + rtol * |ref|, an infinity matched only by
    the same one, and any NaN failing (allclose's `equal_nan=False`), where kbx lets a NaN match a NaN. Against the
    reference at the case's dtype alone: no float64 second opinion, no widening."""
    contract = Contract(kind="allclose", tolerances={dtype: Tolerance(atol, rtol)}, second_opinion=False)
    comparisons = compare(got, expected, contract, dtype, Workload("kernelbench", "bench"))
    for index, (comparison, out) in enumerate(zip(comparisons, _as_list(got))):
        if comparison.status is Status.PASSED and out.is_floating_point():
            nans = int(out.isnan().sum())
            if nans:
                comparisons[index] = replace(comparison, status=Status.MISMATCH, mismatches=nans,
                                             message=f"{nans} of {out.numel()} elements are NaN (torch.allclose "
                                                     "fails a NaN, even where the reference has one)")
    return comparisons


SECOND_OPINION_KINDS = ("exact",)
"""Contracts whose failures are judged again against a float64 run of the reference (an allclose contract is judged
against the float64 truth in the first place, or has no float64 path)."""


def wants_second_opinion(comparisons: Sequence[Comparison], contract: Contract) -> bool:
    """Whether a failed judgement may be a reference less accurate than the candidate: only value mismatches of
    element-wise contracts (a wrong shape, dtype or NaN is wrong against any reference)."""
    if contract.kind not in SECOND_OPINION_KINDS or not contract.second_opinion:
        return False
    statuses = {c.status for c in comparisons}
    return Status.MISMATCH in statuses and statuses <= {Status.PASSED, Status.MISMATCH}


def second_opinion(
    got: Any, expected: Sequence[torch.Tensor], gold: Sequence[Any], contract: Contract, dtype: str,
    workload: Workload,
) -> list[Comparison] | None:
    """Judge `got` again, each element against whichever is nearer to it: the reference at the task dtype or
    `gold` (the reference run on float64 copies of its floating-point inputs) rounded to the output dtype — the
    exact answer as that dtype can hold it. A reference at low precision (cuDNN or cuBLAS in fp16 on a GPU, fp32
    arithmetic where the definition is exact) can be further from that answer than a faithful kernel is; such a
    kernel passes. An element must still be within the contract of one of two defensible answers. Returns the
    comparisons when every output passes that way, otherwise None (the first judgement stands)."""
    outputs = _as_list(got)
    if len(gold) != len(expected) or len(outputs) != len(expected):
        return None
    nearer = []
    for out, g, ref in zip(outputs, gold, expected):
        if not isinstance(g, torch.Tensor) or tuple(g.shape) != tuple(ref.shape) or _form(out, ref) is not None:
            return None
        rounded = g.to(dtype=ref.dtype, device=ref.device)
        nearer.append(rounded if not ref.is_floating_point() else _nearer(out.to(ref.device), ref, rounded))
    comparisons = compare(outputs, nearer, contract, dtype, workload)
    if not all(c.status is Status.PASSED for c in comparisons):
        return None
    return [replace(c, against="float64") for c in comparisons]


def _as_list(got: Any) -> list[Any]:
    """A candidate's return value as a list of outputs (a lone tensor is one output)."""
    return list(got) if isinstance(got, (tuple, list)) else [got]


def _nearer(out: torch.Tensor, ref: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:
    """Per element, whichever of `ref` and `gold` (same dtype and shape) is nearer to `out`, a NaN matching a NaN;
    computed in float64 chunk by chunk (fp8 has no arithmetic; bench outputs are gigabytes)."""
    nearer = torch.empty(ref.shape, dtype=ref.dtype, device=ref.device)
    flat_out, flat_ref, flat_gold, flat_nearer = out.reshape(-1), ref.reshape(-1), gold.reshape(-1), nearer.view(-1)
    for start in range(0, flat_ref.numel(), _CHUNK):
        o, r, g = (t[start : start + _CHUNK].double() for t in (flat_out, flat_ref, flat_gold))
        keep = (o == r) | ((o - r).abs() <= (o - g).abs()) | (o.isnan() & r.isnan())
        flat_nearer[start : start + _CHUNK] = torch.where(keep, r, g).to(ref.dtype)
    return nearer


def _structure(out: Any, ref: torch.Tensor) -> Comparison | None:
    """Type, shape, dtype, and NaN/inf where the reference is finite; None when all hold."""
    problem = _form(out, ref)
    if problem is None and out.is_floating_point():
        bad = int((~torch.isfinite(out.to(ref.device)) & torch.isfinite(ref)).sum())
        if bad:
            problem = Comparison(Status.NONFINITE, f"{bad} of {ref.numel()} elements are non-finite where the "
                                                   "reference is finite")
    return problem


def _form(out: Any, ref: torch.Tensor) -> Comparison | None:
    """A tensor of the reference's shape and dtype, or the failing Comparison."""
    if not isinstance(out, torch.Tensor):
        kind = getattr(out, "type_name", type(out).__name__)
        return Comparison(Status.WRONG_SHAPE, f"returned {kind}, expected a Tensor")
    if tuple(out.shape) != tuple(ref.shape):
        return Comparison(Status.WRONG_SHAPE, f"shape {tuple(out.shape)}, expected {tuple(ref.shape)}")
    if out.dtype != ref.dtype:
        return Comparison(Status.WRONG_DTYPE, f"dtype {out.dtype}, expected {ref.dtype}")
    return None


def compare_tensor(
    out: Any, ref: torch.Tensor, contract: Contract, dtype: str, workload: Workload, base: Basis | None = None
) -> Comparison:
    """Compare one output tensor with one reference tensor (and its basis, when judged against the truth)."""
    problem = _form(out, ref)
    if problem is not None:
        return problem
    if base is not None and ref.is_floating_point():
        return judge_output(out.to(ref.device), base, contract.allowance(dtype_name(ref.dtype), workload))
    if base is not None and base.truth is not None:  # an integer output: each element the reference's or the truth's
        out = out.to(ref.device)
        ref = torch.where(out == base.truth, base.truth, ref)
    exact = not ref.is_floating_point() or contract.kind == "exact"
    tolerance = contract.tolerance(dtype, workload) if contract.kind == "allclose" and not exact else None
    ulps = contract.ulps_for(workload) if ref.is_floating_point() else 0
    tally = _Tally(ulps=ulps)
    flat_out, flat_ref = out.to(ref.device).reshape(-1), ref.reshape(-1)
    for start in range(0, flat_ref.numel(), _CHUNK):
        o = flat_out[start : start + _CHUNK]
        r = flat_ref[start : start + _CHUNK]
        if exact:
            tally.exact(start, o, r)
        else:
            tally.close(start, o.double(), r.double(), tolerance)
    return tally.verdict(tuple(ref.shape), contract, dtype, exact)


@dataclass
class _Tally:
    """Running counts over chunks: bad and non-finite elements, worst errors, sums of squares."""

    total: int = 0
    bad: int = 0
    nonfinite: int = 0
    first_bad: list[Mismatch] = field(default_factory=list)
    first_nonfinite: list[Mismatch] = field(default_factory=list)
    max_abs: float = 0.0
    """The largest finite difference (rows are JSON: an infinity stays out of the numbers)."""
    max_rel: float = 0.0
    infinite_diff: bool = False
    """Whether some element differs from the reference by an infinity or NaN (an inf where a finite value was
    expected, or a finite value where the reference is inf): the message then says so instead of a max of 0."""
    sq_diff: float = 0.0
    sq_ref: float = 0.0
    tolerance: Tolerance | None = None
    ulps: int = 0
    """For an exact contract: how many ulps of the output dtype an element may be off by (`Contract.ulps`)."""

    def exact(self, start: int, o: torch.Tensor, r: torch.Tensor) -> None:
        same = o == r
        if r.is_floating_point():
            same |= torch.isnan(o) & torch.isnan(r)
        o64, r64 = o.double(), r.double()
        if self.ulps:  # only contracts that name ulps, on fp32/fp16/bf16 outputs (`Contract.ulps`)
            name = dtype_name(r.dtype)
            spacing = ulp(r64.abs(), MANTISSA_BITS[name], MIN_EXPONENT[name])
            same |= torch.isfinite(r64) & ((o64 - r64).abs() <= self.ulps * spacing)
        bad = ~same
        self._errors((o64 - r64).abs().masked_fill(same, 0.0), r64)
        self._count(start, bad, o64, r64, self.first_bad, "bad")
        self.total += r.numel()

    def close(self, start: int, o: torch.Tensor, r: torch.Tensor, tol: Tolerance | None) -> None:
        nonfinite = ~torch.isfinite(o) & torch.isfinite(r)
        special = (torch.isnan(o) & torch.isnan(r)) | (torch.isinf(r) & (o == r))
        diff = (o - r).abs().masked_fill(special | nonfinite, 0.0)
        self._count(start, nonfinite, o, r, self.first_nonfinite, "nonfinite")
        self._errors(diff, r)
        if tol is None:  # quantized: a scale-relative bound over the whole tensor
            self.sq_diff += float(diff.square().sum())
            self.sq_ref += float(r.masked_fill(~torch.isfinite(r), 0.0).square().sum())
        else:
            self.tolerance = tol
            # An infinite reference is matched only by the same infinity: atol + rtol * inf would accept anything.
            bad = (~(diff <= tol.atol + tol.rtol * r.abs()) | torch.isinf(r)) & ~special & ~nonfinite
            self._count(start, bad, o, r, self.first_bad, "bad")
        self.total += r.numel()

    def _count(self, start: int, mask: torch.Tensor, o: torch.Tensor, r: torch.Tensor, first: list, what: str) -> None:
        setattr(self, what, getattr(self, what) + note_first(first, start, mask, o, r))

    def _errors(self, diff: torch.Tensor, r: torch.Tensor) -> None:
        finite = torch.isfinite(diff)
        self.infinite_diff = self.infinite_diff or not bool(finite.all())
        if not bool(finite.any()):
            return
        d = diff.masked_fill(~finite, 0.0)
        rel = (d / r.abs()).masked_fill((r == 0) | ~finite | ~torch.isfinite(r), 0.0)
        self.max_abs = max(self.max_abs, float(d.max()))
        self.max_rel = max(self.max_rel, float(rel.max()))

    def verdict(self, shape: tuple[int, ...], contract: Contract, dtype: str, exact: bool) -> Comparison:
        errors = {"max_abs_error": self.max_abs, "max_rel_error": self.max_rel, "total": self.total}
        if self.nonfinite:
            return self._report(Status.NONFINITE, "are non-finite where the reference is finite", shape,
                                self.nonfinite, self.first_nonfinite, errors)
        if not exact and self.tolerance is None:
            bound = contract.bound_for(dtype)
            rel_rmse = math.sqrt(self.sq_diff) / max(math.sqrt(self.sq_ref), 1e-300)
            if rel_rmse <= bound:
                return Comparison(Status.PASSED, rel_rmse=rel_rmse, **errors)
            message = f"RMS(out-ref)/RMS(ref) = {rel_rmse:.3g} exceeds the contract bound {bound:.3g} ({dtype})"
            return Comparison(Status.MISMATCH, message, rel_rmse=rel_rmse, **errors)
        if not self.bad:
            return Comparison(Status.PASSED, **errors)
        exactly = f"are more than {self.ulps} ulp(s) off (exact contract)" if self.ulps else "differ (exact contract)"
        what = exactly if exact else (
            f"are outside atol={self.tolerance.atol:.3g}, rtol={self.tolerance.rtol:.3g}")
        return self._report(Status.MISMATCH, what, shape, self.bad, self.first_bad, errors)

    def _report(
        self, status: Status, what: str, shape: tuple[int, ...], count: int, first: list[Mismatch],
        errors: dict[str, Any],
    ) -> Comparison:
        located = tuple(Mismatch(unravel(m.index[0], shape), m.got, m.expected) for m in first)
        where = ", ".join(f"{list(m.index)}: got {m.got:.6g}, expected {m.expected:.6g}" for m in located[:3])
        largest = "inf" if self.infinite_diff else f"{self.max_abs:.3g}"
        message = f"{count} of {self.total} elements {what}; max abs err {largest}, "
        message += "max rel err inf" if self.infinite_diff else f"max rel err {self.max_rel:.3g}"
        message += f"; first at {where}"
        return Comparison(status, message, mismatches=count, first=located, **errors)


def twin_verdict(outputs: list[Any], earlier: list[Any], same: bool) -> Comparison | None:
    """None when `outputs` relate to `earlier` (a randomised task's outputs for the same inputs) as they must:
    bit for bit equal when the seed was the same (`same`), not all equal when it was moved. Otherwise a MISMATCH
    saying which."""
    equal = len(outputs) == len(earlier) and all(_identical(o, e) for o, e in zip(outputs, earlier))
    if same and not equal:
        differing = sum(_differing(o, e) for o, e in zip(outputs, earlier))
        return Comparison(Status.MISMATCH, "not reproducible: called again on the same inputs and seed, it gave a "
                          f"different output ({differing} element(s) differ); all randomness must come from `seed`")
    if not same and equal:
        return Comparison(Status.MISMATCH, "the output does not depend on `seed`: another seed gave exactly the same "
                          "output on the same inputs")
    return None


def _identical(a: Any, b: Any) -> bool:
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return bool(a == b)
    return a.shape == b.shape and a.dtype == b.dtype and _differing(a, b) == 0


def _differing(a: Any, b: Any) -> int:
    """Elements of a and b that differ, NaN matching NaN (a shape or type difference counts every element)."""
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return 0 if bool(a == b) else 1
    if a.shape != b.shape:
        return max(a.numel(), b.numel(), 1)
    b = b.to(a.device)
    same = a == b
    if a.is_floating_point() and b.is_floating_point():
        same |= torch.isnan(a) & torch.isnan(b)
    return int((~same).sum())
