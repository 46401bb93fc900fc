"""Compare candidate outputs with reference outputs under a task's numerical contract (DESIGN §2).

This is the one comparison module. It runs only in the trusted worker; candidate code never sees it.
A mismatch report says how many elements differ, where the first ones are, and the worst errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from kbx.evaluation.verdict import Comparison, Mismatch
from kbx.status import Status
from kbx.tasks.spec import Contract, Tolerance, Workload

_FIRST = 5
_CHUNK = 1 << 22


def compare(
    got: Any, expected: Sequence[torch.Tensor], contract: Contract, dtype: str, workload: Workload
) -> list[Comparison]:
    """Compare a candidate's return value with the reference outputs, one Comparison per output.

    Args:
        got: what the candidate returned (a tensor, or a tuple/list of tensors).
        expected: the reference outputs, flattened to a list.
        contract: the task's numerical contract.
        dtype: the task dtype of this case (selects the tolerance).
        workload: the workload of this case (may widen the tolerance).
    """
    outputs = list(got) if isinstance(got, (tuple, list)) else [got]
    if len(outputs) != len(expected):
        return [Comparison(Status.WRONG_SHAPE, f"returned {len(outputs)} outputs, expected {len(expected)}")]
    return [
        compare_tensor(out, ref, contract, dtype, workload)
        for out, ref in zip(outputs, expected)
    ]


def compare_tensor(
    out: Any, ref: torch.Tensor, contract: Contract, dtype: str, workload: Workload
) -> Comparison:
    """Compare one output tensor with one reference tensor."""
    if not isinstance(out, torch.Tensor):
        kind = getattr(out, "type_name", type(out).__name__)
        return Comparison(Status.WRONG_SHAPE, f"returned {kind}, expected a Tensor")
    if tuple(out.shape) != tuple(ref.shape):
        return Comparison(Status.WRONG_SHAPE, f"shape {tuple(out.shape)}, expected {tuple(ref.shape)}")
    if out.dtype != ref.dtype:
        return Comparison(Status.WRONG_DTYPE, f"dtype {out.dtype}, expected {ref.dtype}")
    if out.device != ref.device:
        out = out.to(ref.device)
    total = ref.numel()
    if not (ref.is_floating_point() or ref.is_complex()) or contract.kind == "exact":
        return _exact(out, ref, total)
    o, r = out.double(), ref.double()
    nonfinite = ~torch.isfinite(o) & torch.isfinite(r)
    if bool(nonfinite.any()):
        return _report(Status.NONFINITE, "are non-finite where the reference is finite", nonfinite, o, r)
    if contract.kind == "quantized":
        return _quantized(o, r, contract, total)
    return _allclose(o, r, contract.tolerance(dtype, workload), total)


def _exact(out: torch.Tensor, ref: torch.Tensor, total: int) -> Comparison:
    same = out == ref
    if ref.is_floating_point():
        same |= torch.isnan(out) & torch.isnan(ref)
    bad = ~same
    if not bool(bad.any()):
        return Comparison(Status.PASSED, total=total, max_abs_error=0.0, max_rel_error=0.0)
    return _report(Status.MISMATCH, "differ (exact contract)", bad, out.double(), ref.double())


def _allclose(o: torch.Tensor, r: torch.Tensor, tol: Tolerance, total: int) -> Comparison:
    both_nan = torch.isnan(o) & torch.isnan(r)
    same_inf = torch.isinf(r) & (o == r)
    diff = (o - r).abs()
    special = both_nan | same_inf
    diff = torch.where(special, torch.zeros_like(diff), diff)
    bad = ~(diff <= tol.atol + tol.rtol * r.abs()) & ~special
    if not bool(bad.any()):
        max_abs, max_rel = _errors(diff, r)
        return Comparison(Status.PASSED, total=total, max_abs_error=max_abs, max_rel_error=max_rel)
    message = f"are outside atol={tol.atol:.3g}, rtol={tol.rtol:.3g}"
    return _report(Status.MISMATCH, message, bad, o, r)


def _quantized(o: torch.Tensor, r: torch.Tensor, contract: Contract, total: int) -> Comparison:
    assert contract.bound is not None
    rms_ref = float(r.square().mean().sqrt())
    rel_rmse = float((o - r).square().mean().sqrt()) / max(rms_ref, 1e-30)
    max_abs, max_rel = _errors((o - r).abs(), r)
    if rel_rmse <= contract.bound:
        return Comparison(
            Status.PASSED, total=total, max_abs_error=max_abs, max_rel_error=max_rel, rel_rmse=rel_rmse
        )
    return Comparison(
        Status.MISMATCH,
        f"RMS(out-ref)/RMS(ref) = {rel_rmse:.3g} exceeds the contract bound {contract.bound:.3g}",
        max_abs_error=max_abs,
        max_rel_error=max_rel,
        total=total,
        rel_rmse=rel_rmse,
    )


def _errors(diff: torch.Tensor, ref: torch.Tensor) -> tuple[float, float]:
    finite = torch.isfinite(diff)
    if not bool(finite.any()):
        return 0.0, 0.0
    d = torch.where(finite, diff, torch.zeros_like(diff))
    nonzero = ref != 0
    rel = torch.where(nonzero & finite, d / ref.abs().clamp_min(1e-300), torch.zeros_like(d))
    return float(d.max()), float(rel.max())


def _report(status: Status, what: str, bad: torch.Tensor, o: torch.Tensor, r: torch.Tensor) -> Comparison:
    count = int(bad.sum())
    diff = (o - r).abs()
    max_abs, max_rel = _errors(diff, r)
    first = _first_indices(bad)
    mismatches = tuple(
        Mismatch(index=idx, got=float(o[idx]), expected=float(r[idx])) for idx in first
    )
    where = ", ".join(f"{list(m.index)}: got {m.got:.6g}, expected {m.expected:.6g}" for m in mismatches[:3])
    message = (
        f"{count} of {r.numel()} elements {what}; max abs err {max_abs:.3g}, max rel err {max_rel:.3g}; "
        f"first at {where}"
    )
    return Comparison(
        status, message, max_abs_error=max_abs, max_rel_error=max_rel, mismatches=count,
        total=r.numel(), first=mismatches,
    )


def _first_indices(bad: torch.Tensor) -> list[tuple[int, ...]]:
    """Row-major indices of the first few True elements, scanning in chunks to bound memory."""
    flat = bad.reshape(-1)
    found: list[int] = []
    for start in range(0, flat.numel(), _CHUNK):
        hits = flat[start : start + _CHUNK].nonzero().flatten()[: _FIRST - len(found)]
        found.extend(start + int(h) for h in hits)
        if len(found) >= _FIRST:
            break
    shape = bad.shape
    indices = []
    for flat_index in found:
        idx = []
        for size in reversed(shape):
            idx.append(flat_index % size)
            flat_index //= size
        indices.append(tuple(reversed(idx)))
    return indices

