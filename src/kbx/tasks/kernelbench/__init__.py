"""KernelBench problems as a kbx suite, read from the user's own checkout (`--suite kernelbench:PATH`).

Nothing of KernelBench is part of kbx: the problems are read where the user keeps them. `problem` turns one
problem file into a Task from its syntax alone (no torch, as `kbx tasks list` needs), `sizes` shrinks its size
constants into check workloads the CPU interpreter runs, `categories` maps it onto kbx's categories, and `code`
(imported by the workers only) makes its inputs, its reference and the `ModelNew` a candidate defines.
See docs/kernelbench.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kbx.errors import KbxError, TaskError
from kbx.kernelbench_rule import SUITE_PREFIX
from kbx.tasks.kernelbench.problem import level_of, read_problem
from kbx.tasks.spec import Task

PREFIX = SUITE_PREFIX
"""How `--suite` names a KernelBench checkout: `kernelbench:PATH`."""


@dataclass(frozen=True)
class Problems:
    """The problems of a checkout that became tasks, and one line for each that did not."""

    tasks: tuple[Task, ...]
    unloaded: tuple[str, ...]
    """`level3/9_Foo: why`, one per problem file that is not a task kbx can run."""


def problem_root(path: Path) -> Path:
    """The folder holding `level1`, `level2`, `level3`: PATH itself, or the `KernelBench` folder of a checkout.

    Raises:
        KbxError: PATH holds neither.
    """
    for root in (path, path / "KernelBench"):
        if any(level_of(p.name) for p in _folders(root)):
            return root
    raise KbxError(f"{path} is neither a KernelBench checkout nor its problem folder (no level1, level2 or level3 "
                   "folder in it or in its KernelBench folder)")


def load_problems(path: Path, level: int | None = None) -> Problems:
    """Every problem of the checkout or problem folder `path` (of one level, when `level` is given), in level and
    problem-number order."""
    root = problem_root(path)
    tasks: list[Task] = []
    unloaded: list[str] = []
    for folder in sorted((p for p in _folders(root) if level_of(p.name)), key=lambda p: p.name):
        if level is not None and level_of(folder.name) != level:
            continue
        for file in sorted(folder.glob("*.py"), key=_problem_order):
            try:
                tasks.append(read_problem(file))
            except TaskError as exc:
                unloaded.append(f"{folder.name}/{file.stem}: {exc.problem}")
    return Problems(tuple(tasks), tuple(unloaded))


def _folders(root: Path) -> list[Path]:
    return [p for p in root.iterdir() if p.is_dir()] if root.is_dir() else []


def _problem_order(file: Path) -> tuple[int, str]:
    """Problems sort by their number (`2_...` before `10_...`), then by name."""
    number = file.stem.split("_", 1)[0]
    return (int(number) if number.isdigit() else 1 << 30, file.stem)
