"""Verdict values shared by the trusted worker and the orchestrator (no torch needed to read them)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kbx.status import Status


@dataclass(frozen=True)
class Mismatch:
    """One differing element."""

    index: tuple[int, ...]
    got: float
    expected: float


@dataclass(frozen=True)
class Comparison:
    """The verdict on one output of one case, and the numbers behind it."""

    status: Status
    """PASSED, or the failing status (WRONG_SHAPE, WRONG_DTYPE, NONFINITE, MISMATCH)."""
    message: str = ""
    """One line for humans; empty when passed."""
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    mismatches: int = 0
    """Number of elements outside the contract."""
    total: int = 0
    """Number of elements compared."""
    first: tuple[Mismatch, ...] = field(default_factory=tuple)
    """The first few differing elements in row-major order."""
    rel_rmse: float | None = None
    """RMS(out - ref) / RMS(ref), reported for quantized contracts."""
    against: str = "reference"
    """What the output was judged against: the reference at the task dtype, or `float64` — the float64 truth
    (`kbx.evaluation.trusted.against_truth`), or for an exact contract per element the nearer of the reference and
    the truth rounded to the output dtype (`kbx.evaluation.trusted.compare.second_opinion`)."""
    truth_error: float | None = None
    """||out - truth|| / ||truth||, for outputs judged against the float64 truth."""
    eager_error: float | None = None
    """||reference - truth|| / ||truth||: the eager reference's own error, beside `truth_error`."""
    bound_ratio: float | None = None
    """The largest |out - truth| / (the element's bound) over the output (below 1 when every element passes)."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Comparison:
        first = tuple(Mismatch(tuple(m["index"]), m["got"], m["expected"]) for m in data.get("first", ()))
        return cls(**{**data, "status": Status(data["status"]), "first": first})
