"""KernelBench's own correctness rule, judged beside kbx's verdict (`--contract kernelbench`, docs/kernelbench.md).

KernelBench's harness calls a `ModelNew` on five random input sets at the problem's own sizes and calls it correct
when every output has the reference's shape and is `torch.allclose` to it with atol = rtol = 1e-2 (the tolerance of
KernelBench v0 and v0.1, which papers report; `get_tolerance_for_precision` in later versions gives float32 1e-4).
An exception in the candidate fails it; nothing else does: no check of which kernels did the work, of inputs
changed in place, of other sizes, nor of the float64 answer.

kbx judges that rule with its own machinery and boundaries: a second candidate worker, after kbx's own verdict,
runs the five cases (`kbx.evaluation.orchestrator.kernelbench`), and the trusted worker compares each output
with its reference by the rule (`kbx.evaluation.trusted.compare.kernelbench_judge`). This module holds the rule's
numbers and the verdict value, needs no torch and imports no other part of kbx: the evaluation, the analysis
and the report all read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SUITE_PREFIX = "kernelbench:"
"""How a run names a KernelBench suite (`--suite kernelbench:PATH`; `kbx.tasks.kernelbench.PREFIX`)."""
NAME = "kernelbench"
"""The rule's name: `--contract kernelbench`, and the results row's key for its verdict."""
CONTRACTS: tuple[str, ...] = (NAME,)
"""The contracts `--contract` can add beside kbx's own."""

TRIALS = 5
"""Random input sets per evaluation (KernelBench's `num_correct_trials`)."""
ATOL = RTOL = 1e-2
"""torch.allclose's bounds under the rule, for every dtype."""
SEED = 42
"""The base of the rule's input seeds: public and fixed, as KernelBench's are (its `seed_num`)."""
WORKLOAD = "bench"
"""The problem as published: the rule runs nowhere else."""
CASE_RULE = "rule"
"""The key of a trusted-worker `check` payload that names the rule to judge a case by (never sent to the
candidate's worker)."""

PASSED, FAILED, NOT_JUDGED = "PASSED", "FAILED", "NOT_JUDGED"
VERDICTS: tuple[str, ...] = (PASSED, FAILED, NOT_JUDGED)


@dataclass(frozen=True)
class RuleVerdict:
    """What KernelBench's rule says of one evaluation."""

    verdict: str
    """PASSED (every trial allclose), FAILED (a trial not allclose, a wrong shape, an exception, no build), or
    NOT_JUDGED (this machine could not run the rule: the problem's own size on a CPU, a reference that failed)."""
    passed: int
    """Trials whose outputs were allclose (KernelBench's `correctness_trials`, `passed / trials`)."""
    trials: int
    message: str = ""
    """Why it failed or was not judged; empty when it passed."""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"no rule verdict {self.verdict!r}: one of {', '.join(VERDICTS)}")

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "passed": self.passed, "trials": self.trials, "message": self.message,
                "rule": {"inputs": TRIALS, "atol": ATOL, "rtol": RTOL, "workload": WORKLOAD}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RuleVerdict:
        return cls(str(data["verdict"]), int(data["passed"]), int(data["trials"]), str(data.get("message", "")))


def not_judged(why: str) -> RuleVerdict:
    return RuleVerdict(NOT_JUDGED, 0, TRIALS, why)


def failed(why: str, passed: int = 0) -> RuleVerdict:
    return RuleVerdict(FAILED, passed, TRIALS, why)
