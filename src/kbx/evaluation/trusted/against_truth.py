"""Judge floating-point outputs against the float64 truth, by the rule of `kbx.tasks.accuracy` (DESIGN §2).

Per case and output, `basis` is computed once, beside the reference outputs, and cached with them: the truth (kept
in float64, or float32 for outputs of 16 bits or fewer, which it resolves 2^13 times finer), the eager reference's
normwise error, and its error envelope E: the largest error the eager reference makes, per binade of |truth|,
over the binades just below it too. Judging a candidate then takes two passes over its output. Everything runs
chunk by chunk, so memory stays bounded whatever the output's size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import torch

from kbx.evaluation.trusted.mismatches import note_first, unravel
from kbx.evaluation.verdict import Comparison, Mismatch
from kbx.status import Status
from kbx.tasks.accuracy import FLUSH_FLOOR, MANTISSA_BITS, MIN_EXPONENT, RULE, Allowance, Rule
from kbx.tasks.work import tensor_bytes

CHUNK = 1 << 23
"""Elements handled at once: about 600 MiB of float64 temporaries when judging."""
BINS = 2100
"""Binades of |truth|: bin 0 holds exact zeros, bin e + _OFFSET the numbers in [2^(e-1), 2^e)."""
_OFFSET = 1076


@dataclass(frozen=True)
class Basis:
    """What one output of one case is judged against."""

    eager: torch.Tensor
    """The reference's output at the task dtype: its NaNs and infinities are the ones a candidate must repeat."""
    truth: torch.Tensor | None
    """The float64 truth, in float64 or (for 16-bit outputs) float32; where it is not finite, the eager value.
    For integer and boolean outputs, the truth's own output in that dtype (None when it has none)."""
    envelope: torch.Tensor | None = None
    """E per bin of |truth|, float64 (floating-point outputs only)."""
    eager_error: float = 0.0
    """||eager - truth||_2 over the elements where both are finite."""
    norm: float = 0.0
    """||truth||_2 over the same elements."""
    backward: torch.Tensor | None = None
    """P, float32: per element, how far the truth moves when the inputs are perturbed (`with_backward`); None
    until one perturbed run is in."""

    def nbytes(self) -> int:
        """The memory the basis adds to the reference output it holds (the truth, the envelope, P)."""
        return tensor_bytes(*(t for t in (self.truth, self.envelope, self.backward) if t is not None))


def stored_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype the truth of an output of `dtype` is kept in."""
    return torch.float32 if dtype.itemsize <= 2 else torch.float64


def basis(eager: torch.Tensor, truth: torch.Tensor, rule: Rule = RULE) -> Basis:
    """The basis of one output from the eager output and the float64 truth of the same shape. Raises ValueError
    when the truth does not fit the eager output (its shape)."""
    if tuple(truth.shape) != tuple(eager.shape):
        raise ValueError(f"the float64 truth has shape {tuple(truth.shape)}, the reference {tuple(eager.shape)}")
    if not eager.is_floating_point():
        return Basis(eager, truth.to(device=eager.device, dtype=eager.dtype))
    name = str(eager.dtype).removeprefix("torch.")
    if name not in MANTISSA_BITS:
        raise ValueError(f"the truth rule has no numbers for {name} outputs")
    bits, low = MANTISSA_BITS[name], MIN_EXPONENT[name]
    kept = torch.empty(eager.shape, dtype=stored_dtype(eager.dtype), device=eager.device)
    flat_e, flat_t, flat_k = eager.reshape(-1), truth.to(eager.device).reshape(-1), kept.view(-1)
    worst = torch.zeros(BINS, dtype=torch.float64, device=eager.device)
    counts = torch.zeros(BINS, dtype=torch.int64, device=eager.device)
    eager_sq = norm_sq = 0.0
    for start in range(0, flat_e.numel(), CHUNK):
        e, t = flat_e[start : start + CHUNK].double(), flat_t[start : start + CHUNK].double()
        t = torch.where(torch.isfinite(t), t, e).to(kept.dtype).double()
        flat_k[start : start + CHUNK] = t.to(kept.dtype)
        finite = torch.isfinite(e) & torch.isfinite(t)
        error = (e - t).abs().masked_fill(~finite, 0.0)
        magnitude = t.abs().masked_fill(~finite, 0.0)
        bins = binade(magnitude)
        # E keeps what the reference lost computing, beyond its one rounding to the output dtype
        worst.scatter_reduce_(0, bins, (error - 0.5 * ulp(magnitude, bits, low)).clamp_min(0.0), "amax")
        counts += torch.bincount(bins[finite], minlength=BINS)
        eager_sq += float(error.square().sum())
        norm_sq += float(t.masked_fill(~finite, 0.0).square().sum())
    return Basis(eager, kept, envelope(worst, counts, rule), math.sqrt(eager_sq), math.sqrt(norm_sq))


def with_backward(base: Basis, moved: torch.Tensor, start: int = 0) -> Basis:
    """`base` with P raised to |moved - truth| where that is larger, `moved` being the truth on perturbed inputs: of
    the whole output (its shape), or of a block of its rows whose elements begin at `start`."""
    if base.truth is None or base.envelope is None:
        return base
    whole = tuple(moved.shape) == tuple(base.truth.shape)
    rows_of_it = moved.dim() >= 1 and tuple(moved.shape[1:]) == tuple(base.truth.shape[1:])
    if not (whole and start == 0) and not (rows_of_it and start + moved.numel() <= base.truth.numel()):
        return base
    backward = base.backward if base.backward is not None else torch.zeros_like(base.truth, dtype=torch.float32)
    count = moved.numel()
    flat_t = base.truth.reshape(-1)[start : start + count]
    flat_m, flat_b = moved.to(base.truth.device).reshape(-1), backward.view(-1)[start : start + count]
    for first in range(0, count, CHUNK):
        part = slice(first, first + CHUNK)
        change = (flat_m[part].double() - flat_t[part].double()).abs().nan_to_num(0.0, 0.0, 0.0)
        flat_b[part] = torch.maximum(flat_b[part], change.float())
    return replace(base, backward=backward)


def envelope(worst: torch.Tensor, counts: torch.Tensor, rule: Rule) -> torch.Tensor:
    """E per bin from the eager reference's largest error (`worst`) and element count (`counts`) per bin: the largest
    error on the elements of that bin and the `element_reach` bins below it, where those hold at least
    `element_sample` elements (a quarter of them all in an output under 256); elsewhere (the sparse ends) on
    every element of that bin or a lower one, and never over fewer than that many of the smallest (the lowest
    binades of a cancelling sum hold one element or two)."""
    sample = max(min(rule.element_sample, int(counts.sum()) // 4), 1)
    carried = torch.cummax(worst, 0).values
    enough = torch.cumsum(counts, 0) >= sample
    lowest = int(torch.nonzero(enough)[0]) if bool(enough.any()) else BINS - 1
    carried = carried[torch.arange(BINS, device=worst.device).clamp_min(lowest)]
    near, held = worst.clone(), counts.clone()
    for shift in range(1, rule.element_reach + 1):
        near[shift:] = torch.maximum(near[shift:], worst[:-shift])
        held[shift:] += counts[:-shift]
    return torch.where(held >= sample, near, carried)


def binade(magnitude: torch.Tensor) -> torch.Tensor:
    """The bin of each |truth| (float64, finite, >= 0): 0 for zero, else its binary exponent shifted."""
    exponent = torch.frexp(magnitude).exponent.long() + _OFFSET
    return torch.where(magnitude == 0, 0, exponent).clamp(0, BINS - 1)


def ulp(magnitude: torch.Tensor, mantissa_bits: int, min_exponent: int) -> torch.Tensor:
    """The spacing of a dtype (`mantissa_bits` with the implicit one, smallest normal 2^`min_exponent`) at each
    |value| `magnitude` (float64), subnormals included."""
    exponent = torch.frexp(magnitude).exponent.long() - 1
    exponent = torch.where(magnitude == 0, min_exponent, exponent.clamp_min(min_exponent)) - (mantissa_bits - 1)
    return torch.ldexp(torch.ones_like(magnitude), exponent)


def element_bound(magnitude: torch.Tensor, envelope: torch.Tensor, allowance: Allowance, scale: float = 1.0,
                  backward: torch.Tensor | None = None) -> torch.Tensor:
    """The largest error the rule allows on each element of |truth| `magnitude` (float64); `scale`: the factor s
    in [1, k] on the envelope term (the candidate's normwise error over the reference's); `backward`: P of the
    same elements."""
    rule = allowance.rule
    spacing = ulp(magnitude, allowance.mantissa_bits, allowance.min_exponent)
    bound = (rule.element_ulps * spacing + allowance.element_relative * magnitude
             + rule.element_factor * scale * envelope[binade(magnitude)] + FLUSH_FLOOR + allowance.absolute)
    return bound if backward is None else bound + rule.backward_factor * backward.double()


def normwise_error(out: torch.Tensor, base: Basis) -> float:
    """||out - truth||_2 over the elements where the output, the reference and the truth are all finite."""
    assert base.truth is not None
    flat_o, flat_e, flat_t = out.reshape(-1), base.eager.reshape(-1), base.truth.reshape(-1)
    sq = 0.0
    for start in range(0, flat_e.numel(), CHUNK):
        o, e, t = (x[start : start + CHUNK].double() for x in (flat_o, flat_e, flat_t))
        diff = o - t
        sq += float(diff.masked_fill(~(torch.isfinite(diff) & torch.isfinite(e)), 0.0).square().sum())
    return math.sqrt(sq)


def backward_norm(base: Basis) -> float:
    """||P||_2: the norm of the truth's response to perturbed inputs (0 where there were no perturbed runs)."""
    if base.backward is None:
        return 0.0
    return float(torch.linalg.vector_norm(base.backward, dtype=torch.float64))


def own_limit(base: Basis, allowance: Allowance) -> float:
    """The part of the normwise limit that owes nothing to the eager reference: the floor relative to ||truth||,
    c times ||P||, what a backward-stable kernel may move the outputs by where they are ill-conditioned (a scalar
    sum that cancels: the reference's one error there is luck, not a measure), and where the contract has an
    absolute allowance, that allowance on every element."""
    return (allowance.norm_floor * base.norm + allowance.rule.backward_factor * backward_norm(base)
            + allowance.absolute * math.sqrt(base.eager.numel()))


def normwise_limit(base: Basis, allowance: Allowance) -> float:
    """The largest ||out - truth||_2 the rule allows: k times the reference's own error, and `own_limit`."""
    return allowance.rule.norm_factor * base.eager_error + own_limit(base, allowance)


def standing(base: Basis, allowance: Allowance) -> Basis:
    """`base` itself where the eager reference is a yardstick for it, else the basis of a reference that makes no
    error beyond its own rounding (no envelope; as normwise error, that of the truth rounded to the output dtype),
    so that the case is judged by the contract's numbers alone. The reference is no yardstick where its normwise
    error is more than `Rule.yardstick_factor` times `own_limit`: it then breaks the contract it states itself.
    PyTorch's CUDA cumsum adds bf16 in bf16 along an outer dim; at 32768 terms its running sums stop growing, its
    error envelope covered any kernel, and one that rounds its carry to bf16 between chunks passed
    (cumsum/wrong/bf16_carry, H200, session 26)."""
    if base.envelope is None or base.eager_error <= allowance.rule.yardstick_factor * own_limit(base, allowance):
        return base
    return replace(base, envelope=torch.zeros_like(base.envelope), eager_error=_rounding_error(base))


def _rounding_error(base: Basis) -> float:
    """||round(truth) - truth||_2, rounding to the eager output's dtype, over the elements where both are finite."""
    assert base.truth is not None
    flat_e, flat_t = base.eager.reshape(-1), base.truth.reshape(-1)
    sq = 0.0
    for start in range(0, flat_e.numel(), CHUNK):
        t = flat_t[start : start + CHUNK].double()
        diff = t.to(base.eager.dtype).double() - t
        finite = torch.isfinite(diff) & torch.isfinite(flat_e[start : start + CHUNK])
        sq += float(diff.masked_fill(~finite, 0.0).square().sum())
    return math.sqrt(sq)


def envelope_scale(error: float, base: Basis, rule: Rule) -> float:
    """s: how many times the reference's normwise error the candidate's is, within [1, k]. A kernel uniformly less
    accurate than the reference (a one-pass variance, a sequential sum), which the normwise check accepts up to k
    times, may be as much less accurate on each element; a few wrong elements hardly move s."""
    if base.eager_error == 0:
        return 1.0
    return min(max(error / base.eager_error, 1.0), rule.norm_factor)


def judge_output(out: torch.Tensor, base: Basis, allowance: Allowance) -> Comparison:
    """One floating-point output (of the eager output's shape and dtype, on its device) against its basis: two
    passes, the normwise error first, then every element."""
    assert base.truth is not None and base.envelope is not None
    stood = standing(base, allowance)
    eager_stood, base = stood is base, stood
    error = normwise_error(out, base)
    tally = _Tally(scale=envelope_scale(error, base, allowance.rule), eager_stood=eager_stood)
    flat_o, flat_e, flat_t = out.reshape(-1), base.eager.reshape(-1), base.truth.reshape(-1)
    flat_p = base.backward.reshape(-1) if base.backward is not None else None
    for start in range(0, flat_e.numel(), CHUNK):
        part = slice(start, start + CHUNK)
        backward = flat_p[part] if flat_p is not None else None
        tally.add(start, (flat_o[part].double(), flat_e[part].double(), flat_t[part].double(), backward),
                  base.envelope, allowance)
    return tally.verdict(tuple(base.eager.shape), base, allowance, error)


@dataclass
class _Tally:
    """Running counts over chunks."""

    total: int = 0
    bad: int = 0
    nonfinite: int = 0
    first_bad: list[Mismatch] = field(default_factory=list)
    first_nonfinite: list[Mismatch] = field(default_factory=list)
    max_abs: float = 0.0
    max_rel: float = 0.0
    worst: float = 0.0
    """The largest |out - truth| / bound over the elements judged by value."""
    unmatched: int = 0
    """Bad elements where the reference is inf or NaN and the output is not the same (no bound applies there)."""
    scale: float = 1.0
    """s, the factor on the envelope term (`envelope_scale`)."""
    eager_stood: bool = True
    """Whether the eager reference was the yardstick (`standing`); the message says so where it was not."""

    def add(self, start: int, chunk: tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor | None],
            envelope: torch.Tensor, allowance: Allowance) -> None:
        o, e, t, backward = chunk
        nonfinite = ~torch.isfinite(o) & torch.isfinite(e)
        special = (torch.isnan(o) & torch.isnan(e)) | (torch.isinf(e) & (o == e))
        diff = (o - t).abs()
        bound = element_bound(t.abs().nan_to_num(0.0, 0.0, 0.0), envelope, allowance, self.scale, backward)
        bad = ~(diff <= bound) & ~special & ~nonfinite
        judged = torch.isfinite(diff) & ~special
        if bool(judged.any()):
            d = diff.masked_fill(~judged, 0.0)
            self.max_abs = max(self.max_abs, float(d.max()))
            self.max_rel = max(self.max_rel, float((d / t.abs()).masked_fill(~judged | (t == 0), 0.0).max()))
            self.worst = max(self.worst, float((d / bound).masked_fill(~judged, 0.0).max()))
        self._count(start, nonfinite, o, t, self.first_nonfinite, "nonfinite")
        self._count(start, bad, o, t, self.first_bad, "bad")
        self.unmatched += int((bad & ~torch.isfinite(e)).sum())
        self.total += t.numel()

    def _count(self, start: int, mask: torch.Tensor, o: torch.Tensor, t: torch.Tensor, first: list, what: str) -> None:
        setattr(self, what, getattr(self, what) + note_first(first, start, mask, o, t))

    def verdict(self, shape: tuple[int, ...], base: Basis, allowance: Allowance, error: float) -> Comparison:
        norm = max(base.norm, 1e-300)
        limit = normwise_limit(base, allowance)
        numbers = {"max_abs_error": self.max_abs, "max_rel_error": self.max_rel, "total": self.total,
                   "truth_error": error / norm, "eager_error": base.eager_error / norm, "bound_ratio": self.worst,
                   "against": "float64"}
        if self.nonfinite:
            return _report(Status.NONFINITE, "are non-finite where the reference is finite", shape, self.nonfinite,
                           self.first_nonfinite, numbers)
        moved = allowance.rule.backward_factor * backward_norm(base) / norm
        absolute = allowance.absolute * math.sqrt(base.eager.numel()) / norm
        reference = "reference's" if self.eager_stood else "truth rounded to the output dtype's"
        normwise = (f"normwise error ||out - truth|| / ||truth|| = {error / norm:.3g}, allowed "
                    f"{allowance.rule.norm_factor:g} x the {reference} {base.eager_error / norm:.3g} + "
                    f"{allowance.norm_floor:.3g}" + (f" + {moved:.3g} (the truth's response)" if moved else "")
                    + (f" + {absolute:.3g} (absolute)" if absolute else "") + f" = {limit / norm:.3g}")
        if not self.eager_stood:
            normwise += ("; the eager reference is no yardstick here: its own error is past what the contract "
                         "allows")
        if self.bad == self.unmatched:
            what = "differ from the reference's inf or NaN (only the same non-finite value passes there)"
        else:
            what = f"exceed their bound against the float64 truth (worst {self.worst:.3g}x its bound; {normwise})"
            if self.unmatched:
                what += f"; {self.unmatched} of them where the reference is inf or NaN"
        if self.bad:
            return _report(Status.MISMATCH, what, shape, self.bad, self.first_bad, numbers)
        if not error <= limit:
            return Comparison(Status.MISMATCH, normwise, **numbers)
        return Comparison(Status.PASSED, **numbers)


def _report(status: Status, what: str, shape: tuple[int, ...], count: int, first: list[Mismatch],
            numbers: dict[str, object]) -> Comparison:
    located = tuple(Mismatch(unravel(m.index[0], shape), m.got, m.expected) for m in first)
    where = ", ".join(f"{list(m.index)}: got {m.got:.6g}, truth {m.expected:.6g}" for m in located[:3])
    total = numbers["total"]
    message = (f"{count} of {total} elements {what}; max abs err {numbers['max_abs_error']:.3g}, max rel err "
               f"{numbers['max_rel_error']:.3g}; first at {where}")
    return Comparison(status, message, mismatches=count, first=located, **numbers)  # type: ignore[arg-type]


def passing_share(base: Basis, allowance: Allowance, factor: float, scale: float = 1.0) -> float | None:
    """The share of the elements on which an output `factor` times the reference (1.5: 50 % too large) would still
    be within its element's bound, among the elements the reference itself gets within 50 % and whose truth lies
    above the flush range (2^-125) and above 4 x 2 subnormal spacings; None when there are none. Elements where the
    reference is inf or NaN count as checked and not passing: there an output must be the same inf or a NaN, and no
    finite value passes. A contract that checks its outputs passes on few.
    `scale`: s, 1 by default: errors on a few or on small elements, the kind this measures, leave the normwise
    error (and so s) where the reference's is."""
    assert base.truth is not None and base.envelope is not None
    base = standing(base, allowance)
    flat_e, flat_t = base.eager.reshape(-1), base.truth.reshape(-1)
    flat_p = base.backward.reshape(-1) if base.backward is not None else None
    passing = counted = 0
    spacing = 2.0 ** (allowance.min_exponent - allowance.mantissa_bits + 1)
    smallest = max(2 * FLUSH_FLOOR, 4 * allowance.rule.element_ulps * spacing)
    for start in range(0, flat_e.numel(), CHUNK):
        e, t = flat_e[start : start + CHUNK].double(), flat_t[start : start + CHUNK].double()
        # Left out: elements the reference itself misses by half or more, those inside the flush range, and those
        # the output dtype cannot resolve to a half within the rule's ulps (fp16 subnormals of a few spacings).
        judged = torch.isfinite(e) & torch.isfinite(t) & ((e - t).abs() < 0.5 * t.abs()) & (t.abs() >= smallest)
        backward = flat_p[start : start + CHUNK] if flat_p is not None else None
        bound = element_bound(t.abs().nan_to_num(0.0, 0.0, 0.0), base.envelope, allowance, scale, backward)
        passing += int(((factor * e - t).abs() <= bound)[judged].sum())
        counted += int(judged.sum()) + int((~torch.isfinite(e)).sum())
    return passing / counted if counted else None
