"""Prompts: the template files in `prompts/` (package data) filled with a task's facts.

`system.md` fields: modules (the anti-cheat's allow-list of importable modules, so the prompt cannot drift from it).
`task.md` fields: name, category, level, description, signature, parameters, reference, dtypes, contract,
forbidden, workloads, target (the device paragraph of `kbx.generate.gpus`), example_task and example (a suite
solution of another task, so the model sees the expected shape of an answer without seeing this task's).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from string import Template

from kbx.candidates.capabilities import ALLOWED_MODULES
from kbx.errors import KbxError
from kbx.generate.gpus import describe_target
from kbx.generate.providers import Message
from kbx.tasks.describe import contract_lines, workload_lines
from kbx.tasks.spec import Task

EXAMPLE_TASKS = ("relu", "add")
"""The example shown is the first of these that is not the task itself."""


@cache
def template(name: str) -> Template:
    """One template file of `kbx/generate/prompts/`."""
    return Template(files("kbx.generate").joinpath("prompts", f"{name}.md").read_text())


def example_task(task: Task, suite: Mapping[str, Task]) -> Task:
    """The task whose solution serves as the example answer for `task`."""
    for name in EXAMPLE_TASKS:
        if name != task.name and name in suite and suite[name].solution_file.is_file():
            return suite[name]
    raise KbxError(f"no example solution for {task.name}: the suite lacks {' and '.join(EXAMPLE_TASKS)}")


def task_prompt(task: Task, suite: Mapping[str, Task], target: str | None) -> tuple[Message, ...]:
    """The opening conversation (system + user) asking for `task`; `target` is a GPU name, None for the CPU."""
    example = example_task(task, suite)
    fields = {
        "name": task.name,
        "category": task.category,
        "level": task.level,
        "description": task.description.strip(),
        "signature": f"{task.name}{task.signature.render()}",
        "parameters": ", ".join(task.signature.names) or "(none)",
        "reference": task.reference_source.strip(),
        "dtypes": ", ".join(task.dtypes),
        "contract": "\n".join(f"- {line}" for line in contract_lines(task)),
        "forbidden": ", ".join(f"`{op}`" for op in task.forbidden) or "none",
        "workloads": "\n".join(f"- {line}" for line in workload_lines(task)),
        "target": describe_target(target),
        "example_task": example.name,
        "example": example.solution_file.read_text().strip(),
    }
    modules = ", ".join(f"`{m}`" for m in ALLOWED_MODULES if m != "__future__")
    return (Message("system", template("system").substitute(modules=modules)),
            Message("user", template("task").substitute(fields)))
