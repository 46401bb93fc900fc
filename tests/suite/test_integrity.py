"""The suite's own test (DESIGN §3): every task loads, its reference is deterministic, its solution passes on the
CPU interpreter (smoke + check) and every wrong/* candidate fails with its expected status. A wrong candidate marked
`DEVICE = "cuda"` (a mistake only a GPU exposes) is skipped here and run by tests/gpu/test_suite_gpu.py."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch

from kbx.candidates.source import Candidate
from kbx.evaluation.cases import DEVICE_ROLES
from kbx.evaluation.result import Evaluation
from kbx.tasks.module import import_task
from kbx.tasks.registry import default_suite_root, load_suite
from kbx.tasks.spec import CATEGORIES, Task
from kbx.tasks.suite_check import device_reason, expected_status, got_expected, judged_on
from kbx.tasks.validate import check_code

TASKS = load_suite(default_suite_root())
CANDIDATES = [(t, p) for t in TASKS for p in [t.solution_file, *t.honest_files(), *t.wrong_files()]]


@pytest.fixture(scope="session")
def verdicts(cpu_evaluator, request) -> dict[Path, Evaluation]:
    """Evaluate the selected solutions and wrong candidates once (every one without `-k`), two workers at a time."""
    selected = [item.callspec.params for item in request.session.items
                if getattr(item, "originalname", "") == "test_candidate_gets_its_expected_status"]
    pairs = [(p["task"], p["path"]) for p in selected] or CANDIDATES
    pairs = [(t, p) for t, p in pairs if judged_on(p, "cpu")]

    def run(pair: tuple[Task, Path]) -> tuple[Path, Evaluation]:
        task, path = pair
        evaluation = cpu_evaluator.evaluate(task, Candidate(str(path), task.name, path.read_text()))
        _append_time(path, evaluation)
        return path, evaluation

    with ThreadPoolExecutor(max_workers=2) as pool:
        verdicts = dict(pool.map(run, pairs))
    _write_times(verdicts)
    return verdicts


def _time_line(path: Path, evaluation: Evaluation) -> str:
    return (f"{evaluation.elapsed_s:.1f}\t{path.parent.parent.name}/{path.parent.name}/{path.stem}\t"
            f"{evaluation.status.value}\t" + " ".join(f"{k} {v:.1f}" for k, v in evaluation.phases.items()))


def _append_time(path: Path, evaluation: Evaluation) -> None:
    """As each candidate ends, its line to `<KBX_INTEGRITY_TIMES>.partial`: a run stopped early shows how far it got."""
    target = os.environ.get("KBX_INTEGRITY_TIMES")
    if target:
        with open(f"{target}.partial", "a") as partial:
            partial.write(_time_line(path, evaluation) + "\n")


def _write_times(verdicts: dict[Path, Evaluation]) -> None:
    """Where the CI's critical path went: each candidate's wall seconds and phases, slowest first, as TSV to the file
    named by KBX_INTEGRITY_TIMES (unset: nothing is written)."""
    target = os.environ.get("KBX_INTEGRITY_TIMES")
    if not target:
        return
    rows = sorted(verdicts.items(), key=lambda item: -item[1].elapsed_s)
    lines = [_time_line(p, e) for p, e in rows]
    Path(target).write_text("\n".join(lines) + "\n")


def test_suite_covers_every_category():
    assert len(TASKS) >= 130
    assert {t.category for t in TASKS} == set(CATEGORIES)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_task_code_runs_and_every_task_has_a_wrong_candidate(task):
    check_code(task)
    assert task.solution_file.is_file() and task.wrong_files(), f"{task.name} needs solution.py and wrong/*.py"


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_reference_is_deterministic(task):
    code = import_task(task)
    for workload in task.workloads_for(DEVICE_ROLES["cpu"]):
        dtype = task.dtypes[0]
        outputs = []
        for _ in range(2):
            inputs = code.make_inputs(workload, dtype, torch.Generator().manual_seed(1234))
            result = code.reference(**inputs)
            outputs.append(list(result) if isinstance(result, (tuple, list)) else [result])
        for a, b in zip(*outputs):
            assert torch.equal(a, b) or torch.allclose(a, b, rtol=0, atol=0, equal_nan=True), workload.name


@pytest.mark.slow
@pytest.mark.parametrize(
    ("task", "path"), CANDIDATES, ids=[f"{t.name}/{p.parent.name}/{p.stem}" for t, p in CANDIDATES]
)
def test_candidate_gets_its_expected_status(verdicts, task, path):
    if not judged_on(path, "cpu"):
        pytest.skip(f"{device_reason(path)}: judged by tests/gpu/test_suite_gpu.py")
    evaluation = verdicts[path]
    assert got_expected(path, evaluation.status.value), f"expected {expected_status(path)}: {evaluation.message}"
