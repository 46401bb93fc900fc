"""Prompts: the template files in `prompts/` (package data) filled with a task's facts.

`system.md` fields: modules (the anti-cheat's allow-list of importable modules, so the prompt cannot drift from it),
entry_rule (what the module must define: a function, or a KernelBench problem's `ModelNew` class).
`kernelbench.md` (a KernelBench problem) fields: language, name, category, level, description, reference (the problem
file), init and forward (`Model`'s arguments), dtypes, contract, workloads, target and example
(`kernelbench_example.md`, or `kernelbench_example_cuda.md` for CUDA: a problem and its answer written for kbx, so the
model sees the expected shape of an answer).
`task.md` fields: name, category, level, description, signature, parameters, reference, dtypes, contract,
forbidden, workloads, target (the device paragraph of `kbx.generate.gpus`), example_task and example (a suite
solution of another task, so the model sees the expected shape of an answer without seeing this task's).

A backend (`BACKENDS`) chooses the templates and the example: `triton` (`system.md`, `task.md`, the suite's own
solutions) or `cuda` (`system_cuda.md`, `task_cuda.md`, and an extension built with `load_inline` from
`prompts/cuda/`, in the form the CUDA backend's static stage allows: `kbx.candidates.cuda`). A KernelBench problem
takes the backend's system template with the `ModelNew` rule, and `kernelbench.md` with the backend's example.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
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

CUDA_EXAMPLE_TASKS = ("relu", "sigmoid")
"""The same for a CUDA candidate: the first of these with an example in `prompts/cuda/` that is not the task."""


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


FUNCTION_RULE = (
    "- The module defines a top-level function with the task's name and exactly the parameters (names and defaults)\n"
    "  of the reference. It is called with the same arguments as the reference and returns its output (no `out=`),\n"
    "  on the inputs' device, with the reference's shape and dtype."
)
"""The system prompt's rule on what a module defines, for a kbx task."""
MODULE_RULE = (
    "- The module defines `class ModelNew(nn.Module)`, built with the arguments of the problem's `Model` and\n"
    "  called with the arguments of its `forward`. It returns what `Model` returns (no `out=`), on the inputs'\n"
    "  device, with the reference's shape and dtype."
)
"""The same rule for a KernelBench problem."""



def triton_example(task: Task, suite: Mapping[str, Task]) -> tuple[str, str]:
    """(task name, source) of the suite solution shown as the example answer for `task`."""
    example = example_task(task, suite)
    return example.name, example.solution_file.read_text()


def cuda_example(task: Task, suite: Mapping[str, Task]) -> tuple[str, str]:
    """(task name, source) of the CUDA extension shown as the example answer for `task`."""
    name = next(n for n in CUDA_EXAMPLE_TASKS if n != task.name)
    return name, files("kbx.generate").joinpath("prompts", "cuda", f"{name}.py").read_text()


def cuda_target(target: str | None) -> str:
    """The device paragraph for a CUDA candidate: the GPU, or what happens without one."""
    if target is not None and target.lower() != "cpu":
        return describe_target(target)
    return ("An NVIDIA GPU (none named here; kbx builds for compute capability 9.0, Hopper, where no GPU says "
            "otherwise). Without a GPU the extension is only compiled: a compiler error is reported, and the "
            "candidate is judged on a GPU.")


@dataclass(frozen=True)
class PromptStyle:
    """What a backend's prompts are made of."""

    system: str
    """The system template's name."""
    task: str
    """The task template's name."""
    example: Callable[[Task, Mapping[str, Task]], tuple[str, str]]
    target: Callable[[str | None], str]
    language: str
    """How a KernelBench problem's prompt names what to write."""
    kernelbench_example: str
    """The template holding a KernelBench-style problem and its answer in this backend."""


BACKENDS: dict[str, PromptStyle] = {
    "triton": PromptStyle("system", "task", triton_example, describe_target, "Triton", "kernelbench_example"),
    "cuda": PromptStyle("system_cuda", "task_cuda", cuda_example, cuda_target,
                        "CUDA (a PyTorch extension built with `load_inline`)", "kernelbench_example_cuda"),
}
"""The kinds of candidate a prompt can ask for (`kbx prompt --backend`, `kbx run --backend`)."""


def task_prompt(
    task: Task, suite: Mapping[str, Task], target: str | None, backend: str = "triton"
) -> tuple[Message, ...]:
    """The opening conversation (system + user) asking for `task`; `target` is a GPU name, None for the CPU;
    `backend` one of `BACKENDS`."""
    style = BACKENDS.get(backend)
    if style is None:
        raise KbxError(f"unknown backend {backend!r}: choose from {', '.join(BACKENDS)}")
    if task.module is not None:
        return _kernelbench_conversation(task, target, style)
    example_name, example = style.example(task, suite)
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
        "target": style.target(target),
        "example_task": example_name,
        "example": example.strip(),
    }
    modules = ", ".join(f"`{m}`" for m in ALLOWED_MODULES if m != "__future__")
    system = template(style.system).substitute(modules=modules, entry_rule=FUNCTION_RULE)
    return Message("system", system), Message("user", template(style.task).substitute(fields))


def _kernelbench_conversation(task: Task, target: str | None, style: PromptStyle) -> tuple[Message, ...]:
    """The opening conversation for a KernelBench problem: a `ModelNew` in the backend `style` asks for."""
    modules = ", ".join(f"`{m}`" for m in ALLOWED_MODULES if m != "__future__")
    system = template(style.system).substitute(modules=modules, entry_rule=MODULE_RULE)
    return Message("system", system), Message("user", kernelbench_prompt(task, target, style))


def kernelbench_prompt(task: Task, target: str | None, style: PromptStyle | None = None) -> str:
    """The user message asking for a KernelBench problem's `ModelNew` (`kbx.tasks.kernelbench`), in the backend
    `style` asks for (Triton by default)."""
    assert task.module is not None
    style = style or BACKENDS["triton"]
    fields = {
        "language": style.language,
        "name": task.name,
        "category": task.category,
        "level": task.level,
        "description": task.description.strip() or "(the problem file has no docstring)",
        "reference": task.reference_source.strip(),
        "init": ", ".join(task.module.init),
        "forward": task.module.forward.render(),
        "dtypes": ", ".join(task.dtypes),
        "contract": "\n".join(f"- {line}" for line in contract_lines(task)),
        "workloads": "\n".join(f"- {line}" for line in workload_lines(task)),
        "target": style.target(target),
        "example": template(style.kernelbench_example).template.strip(),
    }
    return template("kernelbench").substitute(fields)
