"""`kbx tasks validate`: metadata of every task, then its code on the smoke workloads and on perturbed copies of
its check workloads (on the CPU)."""

from __future__ import annotations

import math
from typing import Any, TextIO

from kbx.errors import TaskError
from kbx.tasks.registry import SuiteSpec, validate_suite
from kbx.tasks.sizes import perturbed
from kbx.tasks.spec import Task, Workload

PERTURB_TRIAL_SEEDS: tuple[int, ...] = (0, 1, 2)
"""Secret seeds `perturb` is tried with: each check workload's copies must all make valid inputs."""


def validate(
    suite: SuiteSpec = None, progress: TextIO | None = None, level: int | None = None
) -> tuple[list[TaskError], int]:
    """Validate every task (of `level`, when given); returns the problems found and the number of task folders (or
    KernelBench problem files)."""
    tasks, problems = validate_suite(suite, level)
    for task in tasks:
        try:
            check_code(task)
        except TaskError as exc:
            problems.append(exc)
        else:
            if progress is not None:
                print(f"ok  {task.category:15s} {task.name}", file=progress)
    return problems, len(tasks) + sum(1 for p in problems if p.path not in {t.task_file for t in tasks})


def check_code(task: Task) -> None:
    """Import the task, make smoke inputs in every dtype and run the reference on them; then `check_perturb`."""
    from kbx.tasks.module import import_task

    code = import_task(task)
    if task.contract.kind in ("property", "statistical") and not callable(getattr(code, "check_outputs", None)):
        raise TaskError(f"{task.task_file}: a {task.contract.kind} contract needs a function "
                        "check_outputs(outputs, inputs, expected, workload, dtype) returning None or why they fail")
    for workload in task.workloads_for(("smoke",)):
        for dtype in task.dtypes:
            inputs = _run(task, code, workload, dtype)
            if code.baseline is not None:
                _check_baseline(task, code, inputs, f"{workload.name}/{dtype}")
    if task.perturbs:
        check_perturb(task, code)


def check_perturb(task: Task, code: Any) -> None:
    """Smoke-check `perturb`: for a few secret seeds, the copy of every check workload makes inputs the reference
    accepts in every dtype, with no more elements than the task's largest check workload (the interpreter must
    stay fast), and the sizes move for at least one seed."""
    checks = task.workloads_for(("check",))
    largest = max(_elements(_make(task, code, w, task.dtypes[0])) for w in checks)
    for workload in checks:
        moved_any = False
        for seed in PERTURB_TRIAL_SEEDS:
            moved = perturbed(task, workload, seed)
            moved_any |= dict(moved.params) != dict(workload.params)
            for dtype in task.dtypes:
                elements = _elements(_run(task, code, moved, dtype))
                if elements > largest:
                    raise TaskError(
                        task.task_file,
                        f"perturbed {moved.name} (secret seed {seed}) makes inputs of {elements} elements, more "
                        f"than the largest check workload's {largest}",
                    )
        if not moved_any:
            raise TaskError(task.task_file, f"perturb({workload.name!r}) never moves the sizes")


def _make(task: Task, code: Any, workload: Workload, dtype: str) -> dict[str, Any]:
    """`make_inputs` for one workload and dtype, checked against the signature."""
    import torch

    where = f"make_inputs({workload.name!r}, {dtype!r})"
    try:
        inputs = code.make_inputs(workload, dtype, torch.Generator().manual_seed(0))
    except Exception as exc:
        raise TaskError(task.task_file, f"{where} raised {type(exc).__name__}: {exc}") from None
    if not isinstance(inputs, dict):
        raise TaskError(task.task_file, f"{where} returned {type(inputs).__name__}, not a dict")
    required = {p.name for p in task.signature.parameters if not p.has_default}
    if missing := required - inputs.keys():
        raise TaskError(task.task_file, f"{where} lacks argument(s) {sorted(missing)}")
    names = {*task.signature.names, *([task.module.INPUT] if task.module is not None else [])}
    if unknown := inputs.keys() - names:
        raise TaskError(task.task_file, f"{where} returned unknown argument(s) {sorted(unknown)}")
    return inputs


def _run(task: Task, code: Any, workload: Workload, dtype: str) -> dict[str, Any]:
    """Make one workload's inputs and run the reference on them; returns the inputs."""
    inputs = _make(task, code, workload, dtype)
    try:
        code.reference(**inputs)
    except Exception as exc:
        raise TaskError(task.task_file, f"reference on {workload.name}/{dtype} raised {exc!r}") from None
    return inputs


def _check_baseline(task: Task, code: Any, inputs: dict[str, Any], where: str) -> None:
    """The task's `baseline` runs on the inputs (with the precision its contract gives baselines) and returns what
    the reference returns, output for output in type, shape and dtype. Whether its values agree by the contract is
    the suite tests' check (`tests/suite/test_baselines.py`) and the trusted worker's, before timing it."""
    from kbx.tasks.baseline import baseline_precision, structure_problem

    try:
        with baseline_precision(task.contract):
            got = code.baseline(**inputs)
    except Exception as exc:
        raise TaskError(task.task_file, f"baseline on {where} raised {exc!r}") from None
    problem = structure_problem(code.reference(**inputs), got)
    if problem is not None:
        raise TaskError(task.task_file, f"baseline on {where} {problem}")


def _elements(inputs: dict[str, Any]) -> int:
    """Elements of the tensor inputs."""
    return sum(math.prod(v.shape) for v in inputs.values() if hasattr(v, "shape"))
