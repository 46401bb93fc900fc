"""Import a task's code (trusted) and expose its reference and input maker."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from kbx.errors import TaskError
from kbx.tasks.spec import Task


class CandidateCodeFailed(Exception):
    """Raised by a task's candidate-side input maker when the candidate's own code failed while the inputs were
    made (a KernelBench `ModelNew` constructor): the candidate's failure, not the task's; the candidate worker
    reports it as the case's RUNTIME_ERROR."""


@dataclass(frozen=True)
class TaskCode:
    """The executable half of a task."""

    task: Task
    reference: Callable[..., Any]
    """The PyTorch reference; its outputs define correctness."""
    make_inputs: Callable[..., dict[str, Any]]
    """`make_inputs(workload, dtype, generator)` -> keyword arguments of the entry point."""
    check_outputs: Callable[..., str | None] | None = None
    """For property and statistical contracts: `check_outputs(outputs, inputs, expected, workload, dtype)`."""
    flops: Callable[..., int] | None = None
    """`flops(**inputs)` -> the FLOPs the operation needs, when torch's count over the reference says more (a
    reference that computes what the operation then masks away, e.g. banded attention as full attention)."""
    min_bytes: Callable[..., int] | None = None
    """`min_bytes(**inputs)` -> the least memory traffic (bytes read and written) the operation needs, when reading
    every input whole says more (an operation that reads only the elements an index selects)."""
    candidate_side: Callable[[Any], tuple[Callable[..., Any], Callable[..., dict[str, Any]]]] | None = None
    """Given what the candidate defines (`Task.entry_point`), the function the candidate worker calls with a case's
    inputs and the input maker it uses there; None: the entry point itself and `make_inputs`. A KernelBench task
    builds the candidate's `ModelNew` beside each case's inputs (`kbx.tasks.kernelbench.code`)."""

    truth_rows: Callable[..., tuple[str, ...] | None] | None = None
    """`truth_rows(**inputs)` -> the inputs whose rows (dim 0) the outputs' rows depend on alone, or None where they
    mix: the float64 truth may then run a block of rows at a time (`kbx.evaluation.trusted.bases`)."""
    truth_row_elements: Callable[..., int] | None = None
    """`truth_row_elements(**inputs)` -> how many elements the float64 reference holds per row at once where that
    is more than a row of its inputs and outputs (attention's scores): the blocks of a run by rows shrink to fit."""
    baseline: Callable[..., Any] | None = None
    """The task's own `baseline(...)`, same parameters as `reference`: what is timed as eager (and compiled for
    torch.compile) where the reference is a clear but slow definition; None times the reference."""

    def for_candidate(self, entry: Any) -> tuple[Callable[..., Any], Callable[..., dict[str, Any]]]:
        """(call, make_inputs) of the candidate worker for the candidate's `entry`."""
        if self.candidate_side is None:
            return entry, self.make_inputs
        return self.candidate_side(entry)

    @property
    def eager(self) -> Callable[..., Any]:
        """The implementation the performance stage times as its eager baseline (and compiles for the other)."""
        return self.reference if self.baseline is None else self.baseline


def import_task(task: Task, register: bool = False) -> TaskCode:
    """Import task.py (or a KernelBench problem file) under a private module name.

    Args:
        task: the task whose code to import.
        register: keep the module in `sys.modules` (the candidate worker passes False so candidate code
            cannot find the reference there).
    """
    if task.module is not None:
        from kbx.tasks.kernelbench.code import import_problem

        return import_problem(task, register)
    name = f"_kbx_task_{task.name}"
    spec = importlib.util.spec_from_file_location(name, task.task_file)
    if spec is None or spec.loader is None:
        raise TaskError(task.task_file, "cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise TaskError(task.task_file, f"import failed: {type(exc).__name__}: {exc}") from exc
    finally:
        if not register:
            sys.modules.pop(name, None)
    return _code_of(task, module)


def _code_of(task: Task, module: ModuleType) -> TaskCode:
    return TaskCode(
        task=task, reference=module.reference, make_inputs=module.make_inputs,
        check_outputs=getattr(module, "check_outputs", None), flops=getattr(module, "flops", None),
        min_bytes=getattr(module, "min_bytes", None), baseline=getattr(module, "baseline", None),
        truth_rows=getattr(module, "truth_rows", None), truth_row_elements=getattr(module, "truth_row_elements", None),
    )
