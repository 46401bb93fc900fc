"""The one status enum of an evaluation, and the flags derived from it (DESIGN §5)."""

from __future__ import annotations

import enum


class Status(str, enum.Enum):
    """Outcome of one candidate on one task; the first failing pipeline stage decides it."""

    REJECTED_STATIC = "REJECTED_STATIC"
    COMPILE_ERROR = "COMPILE_ERROR"
    RUNTIME_ERROR = "RUNTIME_ERROR"
    TIMEOUT = "TIMEOUT"
    CRASHED = "CRASHED"
    OUT_OF_MEMORY = "OUT_OF_MEMORY"
    WRONG_SHAPE = "WRONG_SHAPE"
    WRONG_DTYPE = "WRONG_DTYPE"
    NONFINITE = "NONFINITE"
    MISMATCH = "MISMATCH"
    INPUT_MUTATED = "INPUT_MUTATED"
    REJECTED_RUNTIME = "REJECTED_RUNTIME"
    PASSED = "PASSED"

    @property
    def call_ok(self) -> bool:
        """True when the candidate ran and reached the correctness stage without error."""
        return self in _REACHED_CORRECTNESS

    @property
    def exe_ok(self) -> bool:
        """True when the candidate is correct (KernelBenchX's execution accuracy)."""
        return self is Status.PASSED


_REACHED_CORRECTNESS = frozenset(
    {
        Status.WRONG_SHAPE,
        Status.WRONG_DTYPE,
        Status.NONFINITE,
        Status.MISMATCH,
        Status.INPUT_MUTATED,
        Status.REJECTED_RUNTIME,
        Status.PASSED,
    }
)
