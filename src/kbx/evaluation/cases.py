"""Cases: one (workload, dtype, seed) a candidate is checked on, and how seeds are drawn (DESIGN §4)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from kbx.tasks.spec import Task

PUBLIC_SEEDS: tuple[int, ...] = (1, 2)
"""Seeds anyone can reproduce; each run adds one secret seed."""

DEVICE_ROLES: dict[str, tuple[str, ...]] = {
    "cpu": ("smoke", "check"),
    "cuda": ("smoke", "check", "bench"),
}
"""Workload roles each device can run: the interpreter is too slow for bench sizes."""


@dataclass(frozen=True)
class Case:
    """One call of the candidate: inputs are regenerated from these fields in both workers."""

    index: int
    workload: str
    dtype: str
    seed: int
    """Generator seed for this case, derived from a base seed, the task, workload and dtype."""
    secret: bool = False
    """Whether the base seed was the run's secret one."""

    def label(self) -> str:
        return f"{self.workload}/{self.dtype}/{'secret' if self.secret else 'public'} seed"


def new_secret_seed() -> int:
    """A fresh secret base seed for a run."""
    return secrets.randbits(62)


def case_seed(base: int, task: str, workload: str, dtype: str) -> int:
    """Mix a base seed with the case identity so no two cases share a stream."""
    digest = hashlib.sha256(f"{base}:{task}:{workload}:{dtype}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 62) - 1)


def plan_cases(task: Task, device: str, secret_seed: int) -> list[Case]:
    """Every workload the device can run x every dtype x (public seeds + the secret seed)."""
    bases = [(s, False) for s in PUBLIC_SEEDS] + [(secret_seed, True)]
    cases = []
    for workload in task.workloads_for(DEVICE_ROLES[device]):
        for dtype in task.dtypes:
            for base, secret in bases:
                seed = case_seed(base, task.name, workload.name, dtype)
                cases.append(Case(len(cases), workload.name, dtype, seed, secret))
    return cases
