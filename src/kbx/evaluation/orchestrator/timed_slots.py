"""What a performance stage times and what it found: the slots (one bench workload in one dtype each, with timing
seeds drawn from the run's secret seed), every measurement of a slot, and the stage's outcome as it is stored
(speedups per slot and their geometric mean per task, SOL fractions, where the time went). Pure values: the
stage that fills them is `kbx.evaluation.orchestrator.performance`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.cases import case_seed
from kbx.tasks.spec import Task, Workload
from kbx.timing.stats import Summary, geometric_mean, summarize

TIMING_SEED_OFFSET = 0x7F3A
"""Mixed into the secret seed so timing inputs differ from every correctness case."""
BASELINES = ("eager", "compile")
"""The sides a candidate is compared with, timed in the trusted worker."""


@dataclass(frozen=True)
class Slot:
    """One bench workload in one dtype."""

    index: int
    workload: Workload
    dtype: str
    seeds: tuple[int, ...]

    @property
    def label(self) -> str:
        return f"{self.workload.name}/{self.dtype}"


@dataclass
class SlotTiming:
    """Every measurement of one slot, and what follows from them."""

    slot: Slot
    rounds: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {s: [] for s in ("candidate", *BASELINES)})
    """Side -> the `Measurement.to_json()` of each round (baselines may hold {"error": ...} instead)."""
    flops: int = 0
    bytes: int = 0
    sol_s: float | None = None
    """Speed-of-light time at the slot's dtype."""
    loose_sol_s: float | None = None
    """Speed of light at the fastest rates known for the device (`kbx.timing.sol.loose_sol_time_s`): the bound the
    faster-than-light check uses."""
    canaries: list[dict[str, Any]] = field(default_factory=list)
    """Each round's drift canary where the baselines came from the book (`kbx.evaluation.orchestrator.baselines`)."""

    def baseline_source(self) -> str:
        """"measured" (every round's baselines timed beside the candidate), "reused" (every round's from the book,
        the canary steady) or "re-timed" (the canary drifted, and the rounds from then on were timed in full)."""
        reused = sum(1 for m in self.rounds["eager"] if m.get("reused"))
        return "measured" if not reused else "reused" if reused == len(self.rounds["eager"]) else "re-timed"

    def summary(self, side: str) -> Summary | None:
        samples = [s for m in self.rounds[side] if "samples_ms" in m for s in m["samples_ms"]]
        return summarize(samples) if samples else None

    def speedup(self, baseline: str) -> float | None:
        base, cand = self.summary(baseline), self.summary("candidate")
        return None if base is None or cand is None else base.median / cand.median

    def round_ratios(self, baseline: str) -> list[float]:
        """Baseline median / candidate median per round: how much a single round would have varied."""
        ratios = []
        for base, cand in zip(self.rounds[baseline], self.rounds["candidate"]):
            if "summary" in base and "summary" in cand:
                ratios.append(base["summary"]["median"] / cand["summary"]["median"])
        return ratios

    def sol_fraction(self) -> float | None:
        cand = self.summary("candidate")
        return None if cand is None or self.sol_s is None else self.sol_s / (cand.median / 1e3)

    def to_json(self) -> dict[str, Any]:
        sides = {side: self.summary(side) for side in self.rounds}
        return {
            "workload": self.slot.workload.name,
            "dtype": self.slot.dtype,
            "median_ms": {side: (s.median if s else None) for side, s in sides.items()},
            "summary": {side: (s.to_json() if s else None) for side, s in sides.items()},
            "speedup_eager": self.speedup("eager"),
            "speedup_compile": self.speedup("compile"),
            "round_ratios_eager": self.round_ratios("eager"),
            "round_ratios_compile": self.round_ratios("compile"),
            "flops": self.flops,
            "bytes": self.bytes,
            "sol_ms": None if self.sol_s is None else self.sol_s * 1e3,
            "sol_fraction": self.sol_fraction(),
            "errors": {side: m["error"] for side, ms in self.rounds.items() for m in ms if "error" in m},
            "baselines": self.baseline_source(),
            "canaries": self.canaries,
            "rounds": self.rounds,
        }


@dataclass
class Performance:
    """The outcome of the performance stage for one candidate."""

    slots: list[SlotTiming]
    settings: TimingSettings
    violation: str = ""
    """`runtime.<rule>: ...` when the stage rejected the candidate; empty otherwise."""
    lock_wait_s: float = 0.0
    started_at: float = 0.0
    """Unix time the stage got the GPU (orders the stages of one run; they never overlap on one GPU)."""
    wall_s: float = 0.0
    environment: dict[str, Any] = field(default_factory=dict)
    """Clocks at start and end, peaks, timing method."""
    spent_s: dict[str, float] = field(default_factory=dict)
    """Where the stage's time went, in seconds: each kind of trusted-worker request (`baseline`, `prepare`, `peaks`,
    ...), `candidate` (from a command to the candidate worker to its report: input sets, the measurement, the
    re-check call and its output file) and `recheck` (the trusted worker judging that output)."""
    baseline: dict[str, Any] = field(default_factory=dict)
    """What was timed as the baselines (`baseline_description`), so that every speedup says what it is against."""

    @property
    def complete(self) -> bool:
        return bool(self.slots) and all(len(s.rounds["candidate"]) == self.settings.rounds for s in self.slots)

    def speedup(self, baseline: str) -> float | None:
        """Geometric mean over slots of baseline median / candidate median; None unless every slot has both."""
        return self._geomean([s.speedup(baseline) for s in self.slots])

    def sol_fraction(self) -> float | None:
        return self._geomean([s.sol_fraction() for s in self.slots])

    def _geomean(self, values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return geometric_mean(known) if self.complete and known and len(known) == len(values) else None

    def to_json(self) -> dict[str, Any]:
        return {
            "speedup_eager": self.speedup("eager"),
            "speedup_compile": self.speedup("compile"),
            "sol_fraction": self.sol_fraction(),
            "complete": self.complete,
            "violation": self.violation,
            "lock_wait_s": round(self.lock_wait_s, 3),
            "started_at": round(self.started_at, 3),
            "wall_s": round(self.wall_s, 3),
            "settings": self.settings.to_json(),
            "environment": self.environment,
            "spent_s": {what: round(seconds, 3) for what, seconds in sorted(self.spent_s.items())},
            "baseline": self.baseline,
            "workloads": [s.to_json() for s in self.slots],
        }


def plan_slots(task: Task, secret_seed: int, input_sets: int = TimingSettings.input_sets) -> list[Slot]:
    """Every timed bench workload × dtype, each with its own `input_sets` timing seeds drawn from the secret seed (a
    worker draws fewer sets when they do not fit in memory)."""
    slots = []
    for workload in task.timed_workloads():
        for dtype in task.dtypes:
            seeds = tuple(
                case_seed(secret_seed ^ TIMING_SEED_OFFSET, task.name, f"{workload.name}#timing{k}", dtype)
                for k in range(input_sets)
            )
            slots.append(Slot(len(slots), workload, dtype, seeds))
    return slots


def baseline_description(task: Task) -> dict[str, Any]:
    """What a stage on `task` times as its baselines: `eager` is "baseline" (the task's own, `kbx.tasks.baseline`)
    or "reference", `compile` is torch.compile of the same function, `tf32` whether both ran with TF32 allowed, and
    `uncompetitive` why the task names its baseline not competitive (empty when it is; reports then show geometric
    means without the task too)."""
    timed = "baseline" if task.baseline_source else "reference"
    return {"eager": timed, "compile": f"torch.compile({timed})", "tf32": task.contract.tf32,
            "uncompetitive": task.uncompetitive_baseline}
