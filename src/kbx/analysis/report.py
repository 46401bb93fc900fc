"""Everything a report shows about a set of runs, computed once from the store (`kbx report` and `kbx compare`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kbx.analysis.categories import CategoryCell, category_table, unsolved
from kbx.analysis.crosshw import CrossHardware, cross_hardware
from kbx.analysis.data import MethodRun, TaskOutcome, load_runs, task_set
from kbx.analysis.glm import AnalysisUnavailable, GlmFit, fit_models
from kbx.analysis.headline import Headline, headline
from kbx.analysis.kernelbench import KernelBenchNumbers, kernelbench_numbers
from kbx.analysis.trajectories import Trajectories, trajectories
from kbx.errors import KbxError
from kbx.store.db import Store

MIN_GLM_OBSERVATIONS = 10
"""Fewer (method, task) observations than this, or every model separated, and the GLM table is left out."""

@dataclass(frozen=True)
class Conversation:
    """One stored model call: what was sent (the prompt, then earlier replies and their feedback) and the reply."""

    messages: tuple[dict[str, str], ...]
    reply: str


@dataclass(frozen=True)
class Report:
    """The analysis of a comparison of runs over one task set."""

    runs: tuple[MethodRun, ...]
    tasks: dict[str, str]
    """The task set (name -> category): the denominator of every rate."""
    outcomes: dict[str, list[TaskOutcome]]
    """Method label -> one outcome per task of the task set."""
    headlines: tuple[Headline, ...]
    categories: dict[str, dict[str, CategoryCell]]
    unsolved: tuple[tuple[str, str], ...]
    glm: tuple[GlmFit, ...]
    glm_note: str
    """Why there is no GLM table (statsmodels missing, one observation), or ""."""
    trajectories: dict[str, Trajectories]
    """Method label -> its refinement trajectories, for runs that have iterations."""
    cross_hardware: tuple[CrossHardware, ...]
    code: dict[str, str]
    """Candidate hash -> source, for the drill-down."""
    usage: dict[str, dict[str, Any]]
    """Method label -> its model calls, prompt and completion tokens and cost (`Store.usage`), for runs that called
    a model."""
    conversations: dict[tuple[str, str], Conversation]
    """(run id, candidate name) -> the messages sent for the call that produced the candidate, and its reply."""
    seed: int
    resamples: int
    kernelbench: tuple[KernelBenchNumbers, ...] = ()
    """One per method whose run is over KernelBench problems or recorded KernelBench's rule; empty otherwise."""


def build_report(
    store: Store, run_ids: Sequence[str], *, tasks: Sequence[str] = (), seed: int = 0, resamples: int = 1000,
) -> Report:
    """Analyse the runs (ids or unique prefixes) over `tasks`, or over the union of their tasks.

    Raises:
        KbxError: a run is unknown, or no run was named.
    """
    if not run_ids:
        raise KbxError("name at least one run (kbx runs list shows them)")
    runs = load_runs(store, run_ids)
    chosen = task_set(runs, tasks)
    outcomes = {run.label: run.outcomes(chosen) for run in runs}
    try:
        glm, note = tuple(fit_models(outcomes)), ""
    except AnalysisUnavailable as exc:
        glm, note = (), str(exc)
    observed = sum(len(o) for o in outcomes.values())
    if glm and (observed < MIN_GLM_OBSERVATIONS or all(fit.separated for fit in glm)):
        glm, note = (), (f"no GLM: {observed} (method, task) observation(s), every model separated or fewer than "
                         f"{MIN_GLM_OBSERVATIONS}: too few to say what explains correctness")
    elif glm and len(outcomes) < 2:
        note = "one method only: the method and category + method models say nothing beyond category"
    hashes = {r.candidate_hash for run in runs for r in run.records}
    code = {h: text for h in sorted(hashes) if (text := store.code(h)) is not None}
    usage = {run.label: used for run in runs if (used := store.usage(run.info.run_id))["model_calls"]}
    conversations = {
        (run.info.run_id, g["candidate"]): Conversation(tuple(g["messages"]), str(g["reply"]))
        for run in runs for g in store.generations(run.info.run_id)
    }
    return Report(
        runs=tuple(runs), tasks=chosen, outcomes=outcomes,
        headlines=tuple(headline(run, outcomes[run.label], seed=seed, resamples=resamples) for run in runs),
        categories=category_table(outcomes, seed=seed, resamples=resamples),
        unsolved=tuple(unsolved(outcomes)), glm=glm, glm_note=note,
        trajectories={run.label: t for run in runs if (t := trajectories(run.records)) is not None},
        cross_hardware=tuple(cross_hardware(r for run in runs for r in run.records)), code=code, usage=usage,
        conversations=conversations, seed=seed, resamples=resamples,
        kernelbench=tuple(n for run in runs if (n := kernelbench_numbers(run, outcomes[run.label])) is not None),
    )
