"""The headline of a comparison: every aggregate metric of every method, with its bootstrap interval."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from kbx.analysis import metrics
from kbx.analysis.bootstrap import Estimate, Metric, bootstrap_many
from kbx.analysis.data import MethodRun, TaskOutcome

PASS_KS = (1, 5, 10)
"""pass@k is reported for these k and for the largest sample count of a task, where some task has k samples (and
some task has two or more)."""


@dataclass(frozen=True)
class Headline:
    """One method's aggregates over the task set."""

    label: str
    run_id: str
    device: str
    tasks: int
    call_rate: Estimate
    correctness: Estimate
    fast_1_eager: Estimate
    fast_1_compile: Estimate
    geomean_eager: Estimate
    geomean_compile: Estimate
    slower_than_eager: Estimate
    sol_fraction: Estimate
    pass_at_k: dict[int, Estimate]
    """k -> mean pass@k, for the k the run has enough samples for."""
    fast_p_eager: tuple[tuple[float, float], ...]
    """(p, fast_p vs eager) over `metrics.FAST_P_SWEEP`; empty when the run was never timed (fast_1 is None too)."""
    fast_p_compile: tuple[tuple[float, float], ...]
    pass_curve: tuple[tuple[float, float], ...] = ()
    """(k, mean pass@k) for every k from 1 to the largest sample count of a task; empty when no task has two."""
    geomean_eager_competitive: Estimate = Estimate(None, None, None)
    """`geomean_eager` over the tasks whose timed baseline is competitive (`metrics.competitive`)."""
    geomean_compile_competitive: Estimate = Estimate(None, None, None)
    uncompetitive: tuple[str, ...] = ()
    """The tasks of the set left out of the `_competitive` geometric means (their baseline is named uncompetitive)."""


def headline(run: MethodRun, outcomes: Sequence[TaskOutcome], *, seed: int = 0, resamples: int = 1000) -> Headline:
    """The metrics of one method on its outcomes (one per task of the task set)."""
    named: dict[str, Metric] = {
        "call_rate": metrics.call_rate,
        "correctness": metrics.correctness_rate,
        "fast_1_eager": lambda o: metrics.fast_p(o, 1.0, "eager"),
        "fast_1_compile": lambda o: metrics.fast_p(o, 1.0, "compile"),
        "geomean_eager": lambda o: metrics.geomean_speedup(o, "eager"),
        "geomean_compile": lambda o: metrics.geomean_speedup(o, "compile"),
        "geomean_eager_competitive": lambda o: metrics.geomean_speedup(metrics.competitive(o), "eager"),
        "geomean_compile_competitive": lambda o: metrics.geomean_speedup(metrics.competitive(o), "compile"),
        "slower_than_eager": metrics.slower_than_eager,
        "sol_fraction": metrics.mean_sol_fraction,
    }
    most = max((o.samples for o in outcomes), default=0)
    # with one sample a task, pass@1 is the correctness rate: shown only where some task was sampled more than once
    ks = [] if most < 2 else [k for k in sorted({*PASS_KS, most}) if metrics.mean_pass_at_k(outcomes, k) is not None]
    named.update({f"pass@{k}": partial(_pass_at, k=k) for k in ks})
    untimed = [b for b in ("eager", "compile") if not metrics.timed(outcomes, b)]
    for baseline in untimed:
        del named[f"fast_1_{baseline}"]
    ci = bootstrap_many(outcomes, named, seed=seed, resamples=resamples)
    ci.update({f"fast_1_{b}": Estimate(None, None, None) for b in untimed})
    return Headline(
        label=run.label, run_id=run.info.run_id, device=_device(run), tasks=len(outcomes),
        pass_at_k={k: ci.pop(f"pass@{k}") for k in ks},
        uncompetitive=tuple(sorted(o.task for o in outcomes if o.uncompetitive)),
        fast_p_eager=_curve(outcomes, "eager"),
        fast_p_compile=_curve(outcomes, "compile"),
        pass_curve=() if most < 2 else tuple((float(k), value) for k in range(1, most + 1)
                                             if (value := metrics.mean_pass_at_k(outcomes, k)) is not None),
        **ci,
    )


def _curve(outcomes: Sequence[TaskOutcome], baseline: str) -> tuple[tuple[float, float], ...]:
    if not metrics.timed(outcomes, baseline):
        return ()
    return tuple((p, metrics.fast_p(outcomes, p, baseline)) for p in metrics.FAST_P_SWEEP)


def _pass_at(outcomes: Sequence[TaskOutcome], k: int) -> float | None:
    return metrics.mean_pass_at_k(outcomes, k)


def _device(run: MethodRun) -> str:
    gpus = sorted({r.gpu for r in run.records})
    return "/".join(gpus) if gpus else run.info.device
