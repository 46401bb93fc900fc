"""Find the tasks of a suite: kbx's own (`<suite>/<Category>/<name>/task.py`), or KernelBench problems read from
the user's checkout (`kernelbench:PATH`, `kbx.tasks.kernelbench`)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
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


SuiteSpec = str | Path | None
"""A suite as the user names it (`--suite`): a folder of kbx tasks, `kernelbench:PATH`, or None for the suite
shipped with kbx."""


@dataclass(frozen=True)
class Suite:
    """The tasks of a suite, and one line for each of its problems that could not become a task (a KernelBench
    problem kbx cannot run); a kbx suite raises on its first malformed task instead."""

    tasks: tuple[Task, ...]
    unloaded: tuple[str, ...] = ()


def open_suite(spec: SuiteSpec = None, level: int | None = None) -> Suite:
    """The suite `spec` names, only the tasks of `level` when given.

    Raises:
        KbxError: the folder does not exist or holds no suite.
        TaskError: a kbx task folder is malformed.
    """
    from kbx.tasks import kernelbench

    text = "" if spec is None else str(spec)
    if text.startswith(kernelbench.PREFIX):
        path = text.removeprefix(kernelbench.PREFIX)
        if not path:
            raise KbxError(f"--suite {kernelbench.PREFIX}PATH needs the path of a KernelBench checkout")
        problems = kernelbench.load_problems(Path(path).expanduser().resolve(), level)  # workers start elsewhere
        return Suite(problems.tasks, problems.unloaded)
    tasks = [read_task(folder) for folder in task_folders(Path(spec) if spec is not None else default_suite_root())]
    return Suite(tuple(t for t in tasks if level is None or t.level == level))


def load_suite(spec: SuiteSpec = None, level: int | None = None) -> list[Task]:
    """Read every task of a suite (`open_suite`); the first malformed kbx task raises TaskError."""
    return list(open_suite(spec, level).tasks)


def task_at(path: Path) -> Task:
    """The task at `path`, as the workers find it: a kbx task folder, or a KernelBench problem file."""
    if path.is_file():
        from kbx.tasks.kernelbench.problem import read_problem

        return read_problem(path)
    return read_task(path)


def validate_suite(spec: SuiteSpec = None, level: int | None = None) -> tuple[list[Task], list[TaskError]]:
    """Read every task (of `level`, when given), collecting problems instead of stopping at the first."""
    from kbx.tasks import kernelbench

    tasks, problems = [], []
    if str(spec or "").startswith(kernelbench.PREFIX):
        suite = open_suite(spec, level)
        return list(suite.tasks), [TaskError(*line.split(": ", 1)) for line in suite.unloaded]
    for folder in task_folders(Path(spec) if spec is not None else default_suite_root()):
        try:
            tasks.append(read_task(folder))
        except TaskError as exc:
            problems.append(exc)
    names = [t.name for t in tasks]
    for name in sorted({n for n in names if names.count(n) > 1}):
        problems.append(TaskError(name, "task name used by more than one folder"))
    return [t for t in tasks if level is None or t.level == level], problems


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
