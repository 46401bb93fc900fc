"""`kbx tasks validate`: metadata of every task, then its code on the smoke workloads (on the CPU)."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from kbx.errors import TaskError
from kbx.tasks.registry import validate_suite
from kbx.tasks.spec import Task


def validate(suite: Path | None = None, progress: TextIO | None = None) -> tuple[list[TaskError], int]:
    """Validate every task; returns the problems found and the number of task folders."""
    tasks, problems = validate_suite(suite)
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
    """Import the task, make smoke inputs in every dtype, and run the reference on them."""
    import torch

    from kbx.tasks.module import import_task

    code = import_task(task)
    required = {p.name for p in task.signature.parameters if not p.has_default}
    allowed = set(task.signature.names)
    for workload in task.workloads_for(("smoke",)):
        for dtype in task.dtypes:
            where = f"make_inputs({workload.name!r}, {dtype!r})"
            try:
                inputs = code.make_inputs(workload, dtype, torch.Generator().manual_seed(0))
            except Exception as exc:
                raise TaskError(task.task_file, f"{where} raised {type(exc).__name__}: {exc}") from None
            if not isinstance(inputs, dict):
                raise TaskError(task.task_file, f"{where} returned {type(inputs).__name__}, not a dict")
            if missing := required - inputs.keys():
                raise TaskError(task.task_file, f"{where} lacks argument(s) {sorted(missing)}")
            if unknown := inputs.keys() - allowed:
                raise TaskError(task.task_file, f"{where} returned unknown argument(s) {sorted(unknown)}")
            try:
                code.reference(**inputs)
            except Exception as exc:
                raise TaskError(task.task_file, f"reference on {workload.name}/{dtype} raised {exc!r}") from None
