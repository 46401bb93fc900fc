"""Find the tasks of a suite: `<suite>/<Category>/<name>/task.py`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path

from kbx.errors import KbxError, TaskError
from kbx.tasks.meta import read_task
from kbx.tasks.spec import Task


def default_suite_root() -> Path:
    """The suite shipped inside the package."""
    return Path(__file__).resolve().parent.parent / "suite"


def task_folders(root: Path) -> list[Path]:
    """Every folder of the suite that holds a task.py, sorted by category then name."""
    if not root.is_dir():
        raise KbxError(f"suite folder {root} does not exist")
    return sorted(p.parent for p in root.glob("*/*/task.py"))


def load_suite(root: Path | None = None) -> list[Task]:
    """Read every task of a suite; the first malformed task raises TaskError."""
    return [read_task(folder) for folder in task_folders(root or default_suite_root())]


def validate_suite(root: Path | None = None) -> tuple[list[Task], list[TaskError]]:
    """Read every task, collecting problems instead of stopping at the first."""
    tasks, problems = [], []
    for folder in task_folders(root or default_suite_root()):
        try:
            tasks.append(read_task(folder))
        except TaskError as exc:
            problems.append(exc)
    names = [t.name for t in tasks]
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(TaskError(name, "task name used by more than one folder"))
    return tasks, problems


def select(tasks: Iterable[Task], names: Iterable[str] | None = None, category: str | None = None) -> list[Task]:
    """Filter tasks by name and category; an unknown name is a user error."""
    tasks = list(tasks)
    if names:
        by_name = {t.name: t for t in tasks}
        unknown = [n for n in names if n not in by_name]
        if unknown:
            guesses = [g for n in unknown for g in difflib.get_close_matches(n, by_name, n=2, cutoff=0.6)]
            hint = f"; did you mean {', '.join(dict.fromkeys(guesses))}?" if guesses else ""
            raise KbxError(f"unknown task(s): {', '.join(unknown)}{hint} (see `kbx tasks list`)")
        tasks = [by_name[n] for n in names]
    if category:
        tasks = [t for t in tasks if t.category.lower() == category.lower()]
    return tasks
