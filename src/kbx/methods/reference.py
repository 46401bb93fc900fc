"""The `reference` method, the oracle row of every report: each kbx task's own solution.py, and for a KernelBench
problem the problem's own code with `Model` renamed `ModelNew` (`kbx.tasks.kernelbench.own_code`).

A problem's own code is PyTorch, not a kernel: its candidate carries `Policy.REFERENCE_CODE`
(`kbx.candidates.policy`), so its evaluation leaves out the rules that the candidate's own kernels do the work and
applies every other, and its row says so. A kbx task's solution.py is a kernel and gets every rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from kbx.candidates.policy import Policy
from kbx.candidates.source import Candidate
from kbx.methods.registry import Method, method
from kbx.tasks.kernelbench.own_code import model_as_modelnew
from kbx.tasks.spec import Task

OWN_CODE = "own_code"
"""The provenance key that marks a candidate made of the task's own reference code."""


@method("reference")
class Reference(Method):
    summary = "the suite's own solutions (the default); a KernelBench problem's own Model as ModelNew"

    def candidates(self, tasks: Sequence[Task]) -> list[tuple[Task, Candidate]]:
        return [(task, _own_code(task) if task.module is not None else _solution(task)) for task in tasks]


def _solution(task: Task) -> Candidate:
    """A kbx task's solution.py, a kernel under every rule."""
    path = task.solution_file
    code = path.read_text() if path.is_file() else None
    provenance = MappingProxyType({"method": "reference", "path": str(path)})
    problem = None if code is not None else f"{path} is missing"
    return Candidate(str(path), task.name, code, provenance=provenance, problem=problem)


def _own_code(task: Task) -> Candidate:
    """A KernelBench problem's file with `Model` renamed `ModelNew`, under `Policy.REFERENCE_CODE`."""
    path = task.path
    code = model_as_modelnew(path.read_text(errors="replace")) if path.is_file() else None
    provenance = MappingProxyType({"method": "reference", "path": str(path), OWN_CODE: True})
    problem = None if code is not None else f"{path} is missing"
    return Candidate(str(path), task.name, code, provenance=provenance, problem=problem,
                     policy=Policy.REFERENCE_CODE)
