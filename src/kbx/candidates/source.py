"""The Candidate value: source code plus where it came from."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from kbx.candidates.policy import Policy


def content_hash(code: str) -> str:
    """Stable identifier of a candidate's source."""
    return hashlib.sha256(code.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Candidate:
    """One candidate for one task."""

    name: str
    """Human-readable label: the file path, or `file.jsonl:LINE`."""
    task: str
    """Name of the task it is evaluated on (what it must define is the task's: `Task.entry_point`)."""
    code: str | None
    """Python source; None when nothing usable could be extracted (then `problem` says why)."""
    backend: str = "triton"
    """`triton` or `cuda`, as the candidate was asked for; what is judged is what the source is: the static stage
    reads a module that builds with `load_inline` as CUDA (`StaticVerdict.backend`, `kbx.candidates.cuda`)."""
    provenance: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """Method, model, sample, iteration, raw response ... whatever produced it."""
    problem: str | None = None
    """Why there is no code (e.g. a reply with no code block)."""
    policy: Policy = Policy.KERNEL
    """Which rules its evaluation applies (`kbx.candidates.policy`): set by the method that made it, never read
    from its source."""

    @property
    def hash(self) -> str:
        return content_hash(self.code or "")
