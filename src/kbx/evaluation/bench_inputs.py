"""What both workers share for the performance stage: the timing settings and the rotated input sets.

The trusted worker (eager and compiled baselines) and the candidate worker build the same input sets from the same
seeds, so every side is timed on identical data. Sets are kept for the slot being timed and dropped when the next
slot starts, so at most one workload's sets are alive in a worker.

Everything here imports with torch + the standard library only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from kbx.tasks.work import tensor_bytes

SET_BYTES_BUDGET = 12 << 30
"""Inputs of all rotated sets together stay under this; always at least two sets (DESIGN §6)."""
MAX_SETS = 16
"""The most sets a worker draws, whatever the orchestrator asks for (`TimingSettings.input_sets`)."""


@dataclass(frozen=True)
class TimingSettings:
    """How each measurement of one side in one round is taken (`kbx.timing.measure.time_call`)."""

    rounds: int = 3
    warmup_s: float = 0.1
    budget_s: float = 1.0
    target_rel_ci: float = 0.01
    min_samples: int = 20
    max_samples: int = 2000
    reuse_baselines: bool = True
    """Time the baselines once per run and GPU and reuse them while a drift canary stays steady
    (`kbx.evaluation.orchestrator.baselines`); False times them beside every candidate."""
    input_sets: int = 3
    """Input sets rotated in each measurement (up to `MAX_SETS`, and as many as fit `SET_BYTES_BUDGET`): each set
    lands elsewhere in memory, and a median over more placements moves less between processes (docs/performance.md,
    session 14)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def measure_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of `time_call`."""
        data = asdict(self)
        del data["rounds"], data["reuse_baselines"], data["input_sets"]
        return data


class InputSets:
    """The rotated input sets of the slot being timed, rebuilt when the slot changes."""

    def __init__(self, make_inputs: Callable[..., dict[str, Any]], device: str) -> None:
        self._make_inputs = make_inputs
        self._device = device
        self._key: tuple[str, str, tuple[int, ...]] | None = None
        self.sets: list[dict[str, Any]] = []
        self.seeds: list[int] = []

    def make(self, workload: Any, dtype: str, generator: Any) -> dict[str, Any]:
        """One input set, as the task's `make_inputs` draws it."""
        return self._make_inputs(workload, dtype, generator)

    def forget(self) -> None:
        """Drop the cached sets (their values were changed): the next `get` draws them again."""
        self.sets, self.seeds, self._key = [], [], None

    def get(self, workload: Any, dtype: str, seeds: list[int]) -> list[dict[str, Any]]:
        """At least two sets (up to MAX_SETS while they fit in SET_BYTES_BUDGET), drawn from `seeds` in order."""
        import torch

        key = (workload.name, dtype, tuple(seeds))
        if key == self._key:
            return self.sets
        self.forget()
        for seed in seeds[:MAX_SETS]:
            if len(self.sets) >= 2 and (len(self.sets) + 1) * _bytes(self.sets[0]) > SET_BYTES_BUDGET:
                break
            generator = torch.Generator(device=self._device).manual_seed(seed)
            inputs = self._make_inputs(workload, dtype, generator)
            self.sets.append(inputs)
            self.seeds.append(seed)
        self._key = key
        return self.sets


def _bytes(inputs: Mapping[str, Any]) -> int:
    return tensor_bytes(*inputs.values())
