"""Refinement trajectories: how call rate, correctness and speed move over a refinement chain's iterations.

A chain is one (run, task, sample) whose rows carry `provenance.iteration` (0 for the first attempt). A kernel is
*rescued* when its chain was incorrect at iteration 0 and correct later, *persistently correct* when it was correct
at iteration 0 and at every later iteration, and a *regression* is a chain that was correct at some iteration and
incorrect at a later one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kbx.analysis.data import Record
from kbx.analysis.metrics import geometric_mean


@dataclass(frozen=True)
class IterationStats:
    """The candidates of one iteration over all chains."""

    iteration: int
    candidates: int
    call_rate: float
    correctness: float
    geomean_eager: float | None
    """Over the correct, timed candidates of this iteration."""
    solved_so_far: float
    """Share of chains with a correct kernel at this iteration or before."""


@dataclass(frozen=True)
class Trajectories:
    """Every refinement chain of one method, summarised."""

    chains: int
    iterations: tuple[IterationStats, ...]
    rescued: tuple[tuple[str, float | None], ...]
    """(task, best speedup vs eager of the chain's correct kernels) per rescued chain."""
    persistent: tuple[tuple[str, float | None], ...]
    """The same for persistently correct chains."""
    regressions: tuple[tuple[str, int, int], ...]
    """(task, the iteration last correct, the later iteration found incorrect) per regressed chain."""


def trajectories(records: Sequence[Record]) -> Trajectories | None:
    """The trajectories of the records that have an iteration; None when none has."""
    chains: dict[tuple[str, str, int], dict[int, Record]] = {}
    for r in records:
        if r.iteration is not None:
            chains.setdefault((r.run_id, r.task, r.sample), {})[r.iteration] = r
    if not chains:
        return None
    last = max(i for chain in chains.values() for i in chain)
    stats = tuple(_iteration(i, chains) for i in range(last + 1))
    rescued, persistent, regressions = [], [], []
    for (_, task, _), chain in sorted(chains.items()):
        steps = [chain[i] for i in sorted(chain)]
        best = _best_speedup(steps)
        if not steps[0].exe_ok and any(r.exe_ok for r in steps[1:]):
            rescued.append((task, best))
        elif all(r.exe_ok for r in steps):
            persistent.append((task, best))
        regression = _regression(steps)
        if regression is not None:
            regressions.append((task, *regression))
    return Trajectories(len(chains), stats, tuple(rescued), tuple(persistent), tuple(regressions))


def _iteration(i: int, chains: dict[tuple[str, str, int], dict[int, Record]]) -> IterationStats:
    at = [chain[i] for chain in chains.values() if i in chain]
    solved = sum(1 for chain in chains.values() if any(r.exe_ok for j, r in chain.items() if j <= i))
    speeds = [r.speedup_eager for r in at if r.exe_ok and r.speedup_eager is not None]
    return IterationStats(
        i, len(at), _rate(at, lambda r: r.call_ok), _rate(at, lambda r: r.exe_ok), geometric_mean(speeds),
        solved / len(chains),
    )


def _regression(steps: Sequence[Record]) -> tuple[int, int] | None:
    for a, b in zip(steps, steps[1:]):
        if a.exe_ok and not b.exe_ok:
            return (a.iteration or 0, b.iteration or 0)
    return None


def _best_speedup(steps: Sequence[Record]) -> float | None:
    speeds = [r.speedup_eager for r in steps if r.exe_ok and r.speedup_eager is not None]
    return max(speeds) if speeds else None


def _rate(records: Sequence[Record], hit) -> float:  # noqa: ANN001 - a predicate on one record
    return 0.0 if not records else sum(1 for r in records if hit(r)) / len(records)

