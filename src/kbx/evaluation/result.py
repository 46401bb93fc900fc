"""The Evaluation value: one candidate on one task on one device (DESIGN §2), and its JSON row (§9)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kbx.candidates.policy import Policy
from kbx.evaluation.verdict import Comparison
from kbx.kernelbench_rule import RuleVerdict
from kbx.status import Status


@dataclass(frozen=True)
class CaseResult:
    """Correctness of one case (workload x dtype x seed)."""

    index: int
    workload: str
    dtype: str
    secret: bool
    status: Status
    message: str = ""
    comparisons: tuple[Comparison, ...] = ()
    """One per output tensor."""
    mutated_inputs: tuple[str, ...] = ()
    role: str = ""
    """The workload's role (smoke, check, bench); perturbed and refill cases keep their workload's."""

    def to_json(self) -> dict[str, Any]:
        return {
            "workload": self.workload,
            "role": self.role,
            "dtype": self.dtype,
            "seed": "secret" if self.secret else "public",
            "status": self.status.value,
            "message": self.message,
            "outputs": [c.to_json() for c in self.comparisons],
            "mutated_inputs": list(self.mutated_inputs),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], index: int) -> CaseResult:
        """A case back from its row entry (`to_json`), which does not hold its index."""
        return cls(index, data["workload"], data["dtype"], data["seed"] == "secret", Status(data["status"]),
                   data.get("message", ""), tuple(Comparison.from_json(c) for c in data.get("outputs", [])),
                   tuple(data.get("mutated_inputs", [])), data.get("role", ""))


@dataclass(frozen=True)
class Evaluation:
    """The verdict on one candidate for one task on one device, with everything needed to explain it."""

    task: str
    category: str
    candidate: str
    """The candidate's label (file path or JSONL line)."""
    candidate_hash: str
    status: Status
    message: str
    """One line saying why, empty when PASSED."""
    stage: str
    """The stage that decided: static, call, correctness, performance."""
    device: str
    task_version: str
    cases: tuple[CaseResult, ...] = ()
    elapsed_s: float = 0.0
    worker_output: str = ""
    """Head and tail of what the candidate printed."""
    error: str = ""
    """Traceback of the candidate's exception, trimmed."""
    provenance: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    phases: dict[str, float] = field(default_factory=dict)
    """Wall seconds by phase (`Conversation.phases`, plus `static`): where the evaluation's time went."""
    performance: dict[str, Any] | None = None
    """`Performance.to_json()` when the candidate was timed (GPU only): per-workload samples, speedups, SOL."""
    kernelbench: RuleVerdict | None = None
    """KernelBench's own rule's verdict (`--contract kernelbench`, `kbx.kernelbench_rule`); None when it
    was not asked for or the task is not a KernelBench problem."""
    policy: Policy = Policy.KERNEL
    """The rules it was judged under (`kbx.candidates.policy`): `REFERENCE_CODE` marks the task's own reference code
    run as a candidate, never a kernel's result."""

    def _timed(self, key: str) -> float | None:
        return None if self.performance is None else self.performance.get(key)

    @property
    def call_ok(self) -> bool:
        return self.status.call_ok

    @property
    def correct(self) -> bool:
        """The candidate passed every case (the same as `exe_ok`): the first thing an RL reward needs."""
        return self.status is Status.PASSED

    @property
    def speedup(self) -> float | None:
        """Speedup over eager PyTorch (geometric mean over the bench slots), None where it was not timed (CPU, a
        failed candidate, `--no-timing`)."""
        return self._timed("speedup_eager")

    @property
    def speedup_compile(self) -> float | None:
        """Speedup over `torch.compile` of the reference, None where it was not timed."""
        return self._timed("speedup_compile")

    @property
    def exe_ok(self) -> bool:
        return self.status.exe_ok

    def to_json(self) -> dict[str, Any]:
        """The results.jsonl row. Timing fields are null unless the performance stage measured them."""
        return {
            "task": self.task,
            "category": self.category,
            "candidate": self.candidate,
            "candidate_hash": self.candidate_hash,
            "status": self.status.value,
            "call_ok": self.call_ok,
            "exe_ok": self.exe_ok,
            "device": self.device,
            "confinement": self.environment.get("confinement"),
            "policy": self.policy.value,
            "stage": self.stage,
            "message": self.message,
            "speedup_eager": self._timed("speedup_eager"),
            "speedup_compile": self._timed("speedup_compile"),
            "sol_fraction": self._timed("sol_fraction"),
            "task_version": self.task_version,
            "elapsed_s": round(self.elapsed_s, 3),
            "phases": {name: round(seconds, 3) for name, seconds in self.phases.items()},
            "cases": [c.to_json() for c in self.cases],
            "error": self.error,
            "worker_output": self.worker_output,
            "provenance": self.provenance,
            "environment": self.environment,
            "performance": self.performance,
            "kernelbench": None if self.kernelbench is None else self.kernelbench.to_json(),
        }

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Evaluation:
        """An evaluation back from its results.jsonl row (`to_json`; the derived fields are dropped)."""
        kernelbench = row.get("kernelbench")
        return cls(
            task=row["task"], category=row["category"], candidate=row["candidate"],
            candidate_hash=row["candidate_hash"], status=Status(row["status"]), message=row["message"],
            stage=row["stage"], device=row["device"], task_version=row["task_version"],
            cases=tuple(CaseResult.from_json(c, i) for i, c in enumerate(row.get("cases", []))),
            elapsed_s=float(row.get("elapsed_s", 0.0)), worker_output=row.get("worker_output", ""),
            error=row.get("error", ""), provenance=dict(row.get("provenance", {})),
            environment=dict(row.get("environment", {})), phases=dict(row.get("phases", {})),
            performance=row.get("performance"),
            kernelbench=None if kernelbench is None else RuleVerdict.from_json(kernelbench),
            policy=Policy(row.get("policy", Policy.KERNEL.value)),
        )
