"""A timed run on local GPUs in two parts: every candidate's correctness first, then the timing of those that passed
(`kbx.running.runner`)."""

from __future__ import annotations

from collections.abc import Sequence

from kbx.candidates.source import Candidate
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.result import Evaluation
from kbx.running.schedule import run_all
from kbx.running.writer import Writer
from kbx.tasks.spec import Task


def in_two_parts(evaluator: Evaluator, executor: str) -> bool:
    """Whether a run times its candidates on local GPUs: it then checks every candidate's correctness first and
    times afterwards (`evaluate_in_two_parts`)."""
    return evaluator.device == "cuda" and evaluator.timing is not None and executor == "local"


def evaluate_in_two_parts(evaluators: Sequence[Evaluator], todo: list[tuple[Task, Candidate]], writer: Writer,
                          jobs: int) -> list[Evaluation]:
    """Every pair's correctness cases first (bench cases aside), `jobs` at a time per GPU with nothing being timed;
    then, for those that passed, the bench cases and the performance stage. A stage needs its GPU to itself and
    waits for every case running there; run together, one candidate's minutes of autotuning on many shapes kept
    other candidates' stages waiting (1,253 s of waits in 24 evaluations on 4 H200s, 2026-11-22). Apart, the
    stages wait only for bench cases. Failures and cache hits are stored after the first part, the rest after
    the second; a passing first part is kept in the store meanwhile (`Writer.correctness_part`), so a killed run
    loses only the parts in flight, and its resumption goes on to time what it had checked."""
    evaluations: list[Evaluation] = []
    halfway: list[tuple[Task, Candidate, Evaluation]] = []
    for task, candidate, evaluation, done in run_all(
        evaluators, todo, lambda ev, pair: (*pair, *writer.correctness_part(ev, *pair)), jobs
    ):
        if done:
            evaluations += [evaluation] if evaluation is not None else []
        else:
            assert evaluation is not None
            halfway.append((task, candidate, evaluation))
    for evaluation in run_all(evaluators, halfway, lambda ev, item: writer.timing_part(ev, *item), jobs):
        evaluations += [evaluation] if evaluation is not None else []
    return evaluations
