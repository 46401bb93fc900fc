"""Cases: one (workload, dtype, seed) a candidate is checked on, and how seeds are drawn (DESIGN §4).

Besides every workload the device runs in every dtype under each seed, a run checks perturbed copies of the
task's `check` workloads (`<workload>~p`), whose sizes are drawn from the run's secret seed by the task's
`perturb` (kbx.tasks.sizes), so no candidate can hard-code the published shapes. A perturbed case carries its
params: both workers rebuild its workload with `workload_of`.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from kbx.tasks.sizes import perturbed
from kbx.tasks.spec import Task, Workload

PUBLIC_SEEDS: tuple[int, ...] = (1, 2)
"""Seeds anyone can reproduce; each run adds one secret seed."""

DEVICE_ROLES: dict[str, tuple[str, ...]] = {
    "cpu": ("smoke", "check"),
    "cuda": ("smoke", "check", "bench"),
}
"""Workload roles each device can run: the interpreter is too slow for bench sizes."""

SECRET_ONLY_ROLES: frozenset[str] = frozenset({"bench"})
"""Roles checked under the secret seed alone: a bench case moves gigabytes through both workers, the public seeds
already ran at every smaller size, and the performance stage re-checks the output of one more input set per
bench workload and dtype."""

PERTURBED_ROLE = "check"
"""The role whose workloads get a perturbed copy in every run."""


@dataclass(frozen=True)
class Case:
    """One call of the candidate: inputs are regenerated from these fields in both workers."""

    index: int
    workload: str
    """The workload's name; a perturbed copy is named `<workload>~p`."""
    dtype: str
    seed: int
    """Generator seed for this case, derived from a base seed, the task, workload and dtype."""
    secret: bool
    """Whether the base seed was the run's secret one (always, for a perturbed case)."""
    role: str
    """The workload's role (a perturbed copy keeps its workload's)."""
    params: Mapping[str, Any] | None = None
    """The concrete params of a perturbed workload; None for a workload of the task file."""
    seed_shift: int = 0
    """Added to the candidate's `seed` input (mod 2^31) after the inputs are drawn: a reseeded case is another
    case's inputs under another seed (`reproducibility_cases`)."""
    twin: int | None = None
    """The index of the case whose outputs this one's must equal (same seed) or differ from (shifted seed); the
    trusted worker alone is told, when judging."""

    def label(self) -> str:
        return f"{self.workload}/{self.dtype}/{'secret' if self.secret else 'public'} seed"

    def to_json(self) -> dict[str, Any]:
        """The case as the workers receive it: what rebuilds its inputs (never whether its seed is secret)."""
        data: dict[str, Any] = {
            "index": self.index,
            "workload": self.workload,
            "role": self.role,
            "dtype": self.dtype,
            "seed": self.seed,
        }
        if self.params is not None:
            data["params"] = dict(self.params)
        if self.seed_shift:
            data["seed_shift"] = self.seed_shift
        return data


def workload_of(task: Task, case: Mapping[str, Any]) -> Workload:
    """The workload of a case as the workers receive it (`Case.to_json`): built from the params it carries when
    it is perturbed, else the task's workload of that name."""
    if "params" in case:
        return Workload(case["workload"], case.get("role", PERTURBED_ROLE), MappingProxyType(dict(case["params"])))
    return task.workload(case["workload"])


SEED_PARAMETER = "seed"
"""The input through which a randomised task's candidate takes all its randomness."""
AGAIN_SUFFIX = "~again"
RESEEDED_SUFFIX = "~reseeded"


def reproducibility_cases(task: Task, cases: list[Case], secret_seed: int) -> list[Case]:
    """For a randomised task (a statistical contract and a `seed` input), two more calls on the first case's
    inputs: once as they were (`~again`: the output must be bit-for-bit the first one's: same seed, same output)
    and once with the seed moved by an amount drawn from the secret seed (`~reseeded`: it must pass the contract
    and differ from the first: an output that ignores its seed is one fixed pattern, whatever its statistics).
    Both carry the first case's params, so they run at its sizes."""
    if task.contract.kind != "statistical" or SEED_PARAMETER not in task.signature.names or not cases:
        return []
    first = cases[0]
    params = dict(first.params if first.params is not None else task.workload(first.workload).params)
    shift = 1 + case_seed(secret_seed, task.name, first.workload + RESEEDED_SUFFIX, first.dtype) % (2**31 - 2)
    again = Case(len(cases), first.workload + AGAIN_SUFFIX, first.dtype, first.seed, first.secret, first.role,
                 params, twin=first.index)
    reseeded = Case(len(cases) + 1, first.workload + RESEEDED_SUFFIX, first.dtype, first.seed, first.secret,
                    first.role, params, seed_shift=shift, twin=first.index)
    return [again, reseeded]


def with_seed_shift(inputs: dict[str, Any], case: Mapping[str, Any]) -> dict[str, Any]:
    """The case's inputs with its `seed_shift` applied to the `seed` input (both workers call this)."""
    shift = int(case.get("seed_shift") or 0)
    if shift and SEED_PARAMETER in inputs:
        inputs[SEED_PARAMETER] = (int(inputs[SEED_PARAMETER]) + shift) % 2**31
    return inputs


def new_secret_seed() -> int:
    """A fresh secret base seed for a run."""
    return secrets.randbits(62)


def case_seed(base: int, task: str, workload: str, dtype: str) -> int:
    """Mix a base seed with the case identity so no two cases share a stream."""
    digest = hashlib.sha256(f"{base}:{task}:{workload}:{dtype}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 62) - 1)


def plan_cases(task: Task, device: str, secret_seed: int) -> list[Case]:
    """Every workload the device can run x every dtype x (public seeds + the secret seed; the secret seed alone for
    `SECRET_ONLY_ROLES`), then, when the task
    defines `perturb`, each check workload's perturbed copy x every dtype under the secret seed.

    Perturbed cases come last: a candidate that fails a published workload is stopped before reaching them.

    Raises:
        TaskError: the task's `perturb` failed (`kbx tasks validate` reports that before any run).
    """
    bases = [(s, False) for s in PUBLIC_SEEDS] + [(secret_seed, True)]
    cases: list[Case] = []
    for workload in task.workloads_for(DEVICE_ROLES[device]):
        for dtype in task.dtypes:
            for base, secret in bases:
                if workload.role in SECRET_ONLY_ROLES and not secret:
                    continue
                seed = case_seed(base, task.name, workload.name, dtype)
                cases.append(Case(len(cases), workload.name, dtype, seed, secret, workload.role))
    if task.perturbs and PERTURBED_ROLE in DEVICE_ROLES[device]:
        for workload in task.workloads_for((PERTURBED_ROLE,)):
            moved = perturbed(task, workload, secret_seed)
            for dtype in task.dtypes:
                seed = case_seed(secret_seed, task.name, moved.name, dtype)
                cases.append(Case(len(cases), moved.name, dtype, seed, True, moved.role, moved.params))
    return cases
