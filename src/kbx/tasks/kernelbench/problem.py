"""Read one KernelBench problem file into a Task, from its syntax alone (no torch, nothing of it imported).

A problem is one Python file: a `class Model(nn.Module)`, `get_inputs()` (the forward's arguments) and
`get_init_inputs()` (the constructor's), with its sizes as module-level constants. It becomes a task named by its
level folder and file stem (`level1/19_ReLU`), with:
- a bench workload: the problem as published;
- smoke and check workloads: the same source with its large size constants set to small odd values
  (`kbx.tasks.kernelbench.sizes`), when it has any; the check workload is perturbed from each run's secret seed;
- the float32 dtype (the problems draw float32 inputs) and an allclose contract (`CONTRACT_TOLERANCE`), whose atol is
  widened by the square root of the workload's largest size (`REDUCTION`), as kbx's own matmul and convolution
  tasks widen it by their reduction length;
- no `forbidden` list: what the problem's core operation is cannot be read off its name, so the rule that torch
  must not do the work is the runtime one (`runtime.torch_compute`, docs/kernelbench.md).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import sys
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from kbx import syntax
from kbx.errors import TaskError
from kbx.tasks.kernelbench import sizes
from kbx.tasks.kernelbench.categories import category_of
from kbx.tasks.spec import Contract, ModuleInterface, Parameter, Signature, Task, Tolerance, Workload

RULES_VERSION = "1"
"""Mixed into every problem's task version: a change to how problems are read (workloads, contract) must not be
served from evaluations cached under the old rules."""

DTYPE = "float32"
REDUCTION = "reduction"
"""The workload parameter holding its largest size, by whose square root the contract widens atol."""
CONTRACT_TOLERANCE: Mapping[int, tuple[float, float]] = MappingProxyType({1: (1e-5, 1e-5), 2: (1e-5, 1e-5),
                                                                           3: (1e-4, 1e-4)})
"""float32 (atol, rtol) by level: kbx's float32 default for single operators and fusions; ten times that for whole
networks, whose dozens of layers each round in their own order."""

MODEL, GET_INPUTS, GET_INIT_INPUTS = "Model", "get_inputs", "get_init_inputs"

PERTURB_SOURCE = '''def perturb(workload, rng):
    # Each distinct size moves one to three steps down its grid (odd numbers, or odd multiples of the divisor it
    # must stay a multiple of), so the copy costs no more than the published check; equal sizes move together; none
    # goes below the workload's floor (the widest window, the role's least size) or below a size that was smaller
    # (`seq_len <= max_seqlen` still holds): those stop at the lowest step they may take.
    values, floor = workload.params["sizes"], workload.params["floor"]
    multiples = workload.params.get("multiples", {})
    moved, previous = {}, 0
    for value in sorted(set(values.values())):
        step = 2 * max(multiples.get(k, 1) for k in values if values[k] == value)
        new = value - step * sizes.integer(rng, 1, 3)
        while new < max(floor, previous) and new < value:
            new += step
        moved[value] = previous = new
    resized = {k: moved[v] for k, v in values.items()}
    return {**workload.params, "sizes": resized, "reduction": max(resized.values())}
'''
"""The `perturb` of every KernelBench task (run by `kbx.tasks.sizes` in the orchestrator, from this source)."""


def read_problem(path: Path) -> Task:
    """The task of the problem file `path` (`.../level1/19_ReLU.py`).

    Raises:
        TaskError: one line saying why the file is not a problem kbx can run (syntax error, no `Model`, no
            `get_inputs`, an import that is not installed, ...).
    """
    level = level_of(path.parent.name)
    if level is None:
        raise TaskError(path, f"sits in {path.parent.name!r}, not in a level folder (level1, level2, level3)")
    source = path.read_text(errors="replace")
    try:
        module = syntax.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise TaskError(path, f"syntax error on line {exc.lineno}: {exc.msg}") from None
    model = _class(module, MODEL, path)
    for name in (GET_INPUTS, GET_INIT_INPUTS):
        if not any(isinstance(n, ast.FunctionDef) and n.name == name for n in module.body):
            raise TaskError(path, f"defines no top-level function `{name}()`")
    missing = _missing_imports(module)
    if missing:
        raise TaskError(path, f"imports {', '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} not "
                              "installed here")
    forward = _forward(model, path)
    if ModuleInterface.INPUT in forward.names:
        raise TaskError(path, f"Model.forward has a parameter named {ModuleInterface.INPUT!r}, which kbx's inputs use")
    workloads = _workloads(module, level)
    return Task(
        name=f"{path.parent.name}/{path.stem}",
        category=category_of(level, path.stem),
        level=level,
        description=(ast.get_docstring(model) or ast.get_docstring(module) or "").strip(),
        signature=forward,
        dtypes=(DTYPE,),
        contract=_contract(level),
        workloads=workloads,
        path=path,
        version=hashlib.sha256(f"kernelbench:{RULES_VERSION}\n{source}".encode()).hexdigest()[:16],
        reference_source=source.strip() + "\n",
        perturb_source=PERTURB_SOURCE if len(workloads) > 1 else "",
        module=ModuleInterface(init=_parameters(_method(model, "__init__")), forward=forward),
    )


def published_elements(task: Task) -> int:
    """An estimate of the elements of the largest input `get_inputs` makes at the problem's own sizes, from its
    syntax alone (`sizes.input_elements`)."""
    module = syntax.parse(task.path.read_text(errors="replace"), filename=str(task.path))
    return sizes.input_elements(module, sizes.constants(module))


def level_of(folder: str) -> int | None:
    """1, 2 or 3 for a folder named `level1`, `level2`, `level3`; None for any other."""
    return {"level1": 1, "level2": 2, "level3": 3}.get(folder)


def _class(module: ast.Module, name: str, path: Path) -> ast.ClassDef:
    for node in module.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise TaskError(path, f"defines no top-level `class {name}(nn.Module)`")


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    found = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name]
    return found[-1] if found else None


def _parameters(func: ast.FunctionDef | None) -> tuple[str, ...]:
    """The names of a method's positional parameters after `self` (`*args` as `*args`)."""
    if func is None:
        return ()
    args = func.args
    names = [a.arg for a in [*args.posonlyargs, *args.args][1:]]
    return (*names, *([f"*{args.vararg.arg}"] if args.vararg else []))


def _forward(model: ast.ClassDef, path: Path) -> Signature:
    """`Model.forward`'s parameters after `self`; a default that is not a literal shows as None."""
    func = _method(model, "forward")
    if func is None:
        raise TaskError(path, "Model defines no forward()")
    args = func.args
    positional = [*args.posonlyargs, *args.args][1:]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    parameters = [Parameter(a.arg, d is not None, _literal_or_none(d)) for a, d in zip(positional, defaults)]
    return Signature(tuple(parameters))


def _literal_or_none(node: ast.expr | None) -> Any:
    try:
        return None if node is None else ast.literal_eval(node)
    except ValueError:
        return None


def _missing_imports(module: ast.Module) -> list[str]:
    """Top-level modules the problem imports that cannot be found here (looked up, never imported)."""
    names: list[str] = []
    for node in module.body:
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module.split(".")[0])
    return sorted({n for n in names if n not in sys.builtin_module_names and importlib.util.find_spec(n) is None})


def _contract(level: int) -> Contract:
    atol, rtol = CONTRACT_TOLERANCE[level]
    tolerances = MappingProxyType({DTYPE: Tolerance(atol, rtol)})
    return Contract(kind="allclose", tolerances=tolerances, reduction_length=REDUCTION)


def _workloads(module: ast.Module, level: int) -> tuple[Workload, ...]:
    """The bench workload (the problem as published), then smoke and check when some size can shrink."""
    found = sizes.constants(module)
    workloads = [Workload("bench", "bench", MappingProxyType({"sizes": {}, REDUCTION: max([1, *found.values()])}))]
    roles = (sizes.SMOKE, sizes.CHECK) if level < 3 else (sizes.NETWORK_SMOKE, sizes.NETWORK_CHECK)
    for role, rule in zip(("smoke", "check"), roles):
        shrunk = sizes.shrink(module, found, rule)
        if shrunk is None:
            break
        params: dict[str, Any] = {"sizes": shrunk.sizes, "floor": shrunk.floor}
        if shrunk.divisors:
            params["divisors"] = shrunk.divisors
        if shrunk.multiples:
            params["multiples"] = shrunk.multiples
        params[REDUCTION] = max([1, *{**found, **shrunk.values()}.values()])
        workloads.append(Workload(role, role, MappingProxyType(params)))
    return tuple(workloads)
