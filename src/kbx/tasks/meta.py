"""Read and validate a task folder's metadata from the source of its task.py, without importing it.

A task.py declares a literal `TASK = {...}` dict and two functions, `reference` and `make_inputs`, and optionally
a third, `perturb` (see `kbx.tasks.sizes`).
Everything about the task except its behaviour is read here with `ast`, so `kbx tasks list` needs no torch.
"""

from __future__ import annotations

import ast
import hashlib
import math
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

from kbx import syntax
from kbx.errors import TaskError
from kbx.tasks import presets, sizes
from kbx.tasks.contract_meta import read_contract
from kbx.tasks.spec import (
    CATEGORIES,
    DTYPES,
    MATMUL_OPERATOR,
    ROLES,
    Parameter,
    Signature,
    Task,
    Workload,
    normalise_op,
)

_TASK_KEYS = {"name", "category", "level", "signature", "dtypes", "contract", "workloads"}
_OPTIONAL_TASK_KEYS = {"forbidden", "input_ranges", "perturb", "defaults_kept", "uncompetitive_baseline"}
_WORKLOAD_KEYS = {"name", "role", "params", "min_gpu_gib", "timed"}
_MAKE_INPUTS_PARAMS = ("workload", "dtype", "generator")


def read_task(folder: Path) -> Task:
    """Parse and validate `folder/task.py`.

    Raises:
        TaskError: naming the file and the first problem found.
    """
    path = folder / "task.py"
    if not path.is_file():
        raise TaskError(path, "missing task.py")
    source = path.read_text()
    try:
        module = syntax.parse(source, filename=str(path))
    except SyntaxError as exc:
        raise TaskError(path, f"syntax error on line {exc.lineno}: {exc.msg}") from None
    return _Reader(path, source, module).task(folder)


def parse_signature(text: str) -> Signature:
    """Parse a signature like `(input, approximate='none')`; raises ValueError when malformed."""
    try:
        func = syntax.parse(f"def _f{text}:\n    pass").body[0]
    except SyntaxError as exc:
        raise ValueError(f"signature {text!r} does not parse: {exc.msg}") from None
    assert isinstance(func, ast.FunctionDef)
    return signature_of(func)


def signature_of(func: ast.FunctionDef) -> Signature:
    """The signature of a function definition; only plain parameters with literal defaults are allowed."""
    args = func.args
    if args.posonlyargs or args.vararg or args.kwonlyargs or args.kwarg:
        raise ValueError("only plain positional-or-keyword parameters are allowed (no /, *, *args, **kw)")
    defaults: list[Any] = []
    for node in args.defaults:
        try:
            defaults.append(ast.literal_eval(node))
        except ValueError:
            raise ValueError(f"default {ast.unparse(node)!r} is not a literal") from None
    first_default = len(args.args) - len(defaults)
    params = []
    for i, arg in enumerate(args.args):
        if i >= first_default:
            params.append(Parameter(arg.arg, has_default=True, default=defaults[i - first_default]))
        else:
            params.append(Parameter(arg.arg))
    return Signature(tuple(params))


class _Reader:
    """Validates one task.py; each check raises TaskError with the file's path."""

    def __init__(self, path: Path, source: str, module: ast.Module) -> None:
        self.path = path
        self.source = source
        self.module = module

    def fail(self, problem: str) -> TaskError:
        return TaskError(self.path, problem)

    def task(self, folder: Path) -> Task:
        raw = self._literal_task()
        missing = _TASK_KEYS - raw.keys()
        if missing:
            raise self.fail(f"TASK lacks {', '.join(sorted(missing))}")
        unknown = raw.keys() - _TASK_KEYS - _OPTIONAL_TASK_KEYS
        if unknown:
            raise self.fail(f"TASK has unknown keys {', '.join(sorted(unknown))}")
        name = self._name(raw["name"], folder)
        category = raw["category"]
        if category not in CATEGORIES:
            raise self.fail(f"category {category!r} is not one of {', '.join(CATEGORIES)}")
        if folder.parent.name != category:
            raise self.fail(f"task folder must sit under a folder named {category!r}")
        level = raw["level"]
        if level not in (1, 2, 3):
            raise self.fail(f"level must be 1, 2 or 3, not {level!r}")
        signature = self._signature(raw["signature"])
        dtypes = self._dtypes(raw["dtypes"])
        workloads = self._workloads(raw["workloads"])
        contract = read_contract(raw["contract"], dtypes, workloads, self.fail)
        unknown = set(contract.rounded_inputs) - set(signature.names)
        if unknown:
            raise self.fail(f"rounded_inputs names {', '.join(sorted(unknown))}, not parameters of the signature")
        forbidden = self._forbidden(raw.get("forbidden", []))
        input_ranges = self._input_ranges(raw.get("input_ranges", {}), signature)
        defaults_kept = self._defaults_kept(raw.get("defaults_kept", {}), signature)
        self._make_inputs()
        perturb_source = self._perturb(raw.get("perturb"), workloads)
        reference = self._function("reference")
        baseline = self._baseline(signature)
        return Task(
            name=name,
            category=category,
            level=level,
            description=ast.get_docstring(self.module) or "",
            signature=signature,
            dtypes=dtypes,
            contract=contract,
            workloads=workloads,
            path=folder,
            version=hashlib.sha256(self.source.encode()).hexdigest()[:16],
            reference_source=ast.get_source_segment(self.source, reference) or "",
            forbidden=forbidden,
            input_ranges=input_ranges,
            defaults_kept=defaults_kept,
            perturb_source=perturb_source,
            baseline_source=(ast.get_source_segment(self.source, baseline) or "") if baseline else "",
            uncompetitive_baseline=self._uncompetitive(raw),
        )

    def _literal_task(self) -> dict[str, Any]:
        for node in self.module.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "TASK" for t in node.targets
            ):
                try:
                    value = ast.literal_eval(node.value)
                except ValueError:
                    raise self.fail(f"TASK (line {node.lineno}) must be a literal dict") from None
                if not isinstance(value, dict):
                    raise self.fail(f"TASK (line {node.lineno}) must be a dict")
                return value
        raise self.fail("no top-level `TASK = {...}` literal")

    def _name(self, name: object, folder: Path) -> str:
        if not isinstance(name, str) or not name.isidentifier():
            raise self.fail(f"name {name!r} must be a Python identifier")
        if name != folder.name:
            raise self.fail(f"name {name!r} differs from its folder name {folder.name!r}")
        return name

    def _function(self, name: str) -> ast.FunctionDef:
        for node in self.module.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return node
        raise self.fail(f"no top-level function `{name}`")

    def _signature(self, text: object) -> Signature:
        if not isinstance(text, str):
            raise self.fail("signature must be a string like \"(input, dim=-1)\"")
        try:
            declared = parse_signature(text)
            actual = signature_of(self._function("reference"))
        except ValueError as exc:
            raise self.fail(str(exc)) from None
        if declared != actual:
            raise self.fail(f"reference{actual.render()} does not match the declared signature {text}")
        return declared

    def _baseline(self, signature: Signature) -> ast.FunctionDef | None:
        """The task's optional `baseline` function, whose parameters must be the reference's."""
        bindings = [node for node in self.module.body if "baseline" in _bound_names(node)]
        if not bindings:
            return None
        func = bindings[0]
        if len(bindings) > 1 or not isinstance(func, ast.FunctionDef):
            raise self.fail("baseline must be bound once, by a top-level `def baseline(...)`")
        try:
            actual = signature_of(func)
        except ValueError as exc:
            raise self.fail(f"baseline: {exc}") from None
        if actual != signature:
            raise self.fail(f"baseline{actual.render()} must take the reference's parameters {signature.render()}")
        return func

    def _uncompetitive(self, raw: dict[str, Any]) -> str:
        reason = raw.get("uncompetitive_baseline", "")
        if not isinstance(reason, str) or ("uncompetitive_baseline" in raw and not reason.strip()):
            raise self.fail("uncompetitive_baseline must say why the timed baseline is not a competitive "
                            "implementation (a non-empty string)")
        return reason

    def _make_inputs(self) -> None:
        params = tuple(a.arg for a in self._function("make_inputs").args.args)
        if params != _MAKE_INPUTS_PARAMS:
            raise self.fail(f"make_inputs must take {_MAKE_INPUTS_PARAMS}, not {params}")

    def _perturb(self, declared: object, workloads: tuple[Workload, ...]) -> str:
        """The source of the task's perturbation: `TASK["perturb"]` (the name of the one shape parameter moved by
        `sizes.shape_near`, `sizes.declared_perturb`), else its own `perturb(workload, rng)`, else "" for none."""
        bindings = [node for node in self.module.body if "perturb" in _bound_names(node)]
        if declared is not None:
            if bindings:
                raise self.fail('perturb is declared in TASK and defined too: keep one (TASK["perturb"] for the '
                                "standard rule, `def perturb` for anything else)")
            if not isinstance(declared, str) or any(
                not isinstance(w.params.get(declared), list) for w in workloads if w.role == "check"
            ):
                raise self.fail(f'TASK["perturb"] names the shape parameter every check workload has (a list), '
                                f"not {declared!r}")
            return sizes.declared_perturb(declared)
        if not bindings:
            return ""
        func = bindings[0]
        if len(bindings) > 1 or not isinstance(func, ast.FunctionDef):
            raise self.fail("perturb must be bound once, by a top-level `def perturb(workload, rng):`")
        args = func.args
        params = tuple(a.arg for a in args.posonlyargs + args.args)
        if params != sizes.PERTURB_PARAMS or args.vararg or args.kwonlyargs or args.kwarg or args.defaults:
            raise self.fail(f"perturb must take exactly {sizes.PERTURB_PARAMS}, not {ast.unparse(args)!r}")
        if func.decorator_list:
            raise self.fail("perturb must be a plain function, without decorators")
        if any(isinstance(node, (ast.Import, ast.ImportFrom)) for node in ast.walk(func)):
            raise self.fail("perturb must not import anything: it runs in the orchestrator, which never imports torch")
        unknown = sizes.free_names(func) - sizes.perturb_globals().keys()
        if unknown:
            raise self.fail(
                f"perturb reads {', '.join(sorted(unknown))}; it runs without task.py's other names, so only its "
                f"arguments, builtins, {' and '.join(sorted(sizes.perturb_globals()))} are available"
            )
        return ast.get_source_segment(self.source, func) or ""

    def _forbidden(self, raw: object) -> tuple[str, ...]:
        if not isinstance(raw, list) or not all(
            isinstance(op, str) and (op.isidentifier() or op == MATMUL_OPERATOR) for op in raw
        ):
            raise self.fail('forbidden must be a list of operation names or "@", e.g. ["relu", "clamp", "@"]')
        seen: dict[str, str] = {}
        for op in raw:
            if normalise_op(op) in seen:
                raise self.fail(f"forbidden names {seen[normalise_op(op)]!r} and {op!r} are the same operation "
                                "(names match case- and underscore-blind)")
            seen[normalise_op(op)] = op
        return tuple(raw)

    def _input_ranges(self, raw: object, signature: Signature) -> Mapping[str, tuple[float, float]]:
        if not isinstance(raw, dict):
            raise self.fail('input_ranges must be a dict of parameter name to [low, high], e.g. {"input": [0.0, 1.0]}')
        ranges = {}
        for name, interval in raw.items():
            if name not in signature.names:
                raise self.fail(f"input_ranges names {name!r}, which is not a parameter of the signature")
            if not (isinstance(interval, list) and len(interval) == 2
                    and all(isinstance(x, (int, float)) and math.isfinite(x) for x in interval)
                    and interval[0] < interval[1]):
                raise self.fail(f"input_ranges[{name!r}] must be [low, high] with finite low < high")
            ranges[name] = (float(interval[0]), float(interval[1]))
        return MappingProxyType(ranges)

    def _defaults_kept(self, raw: object, signature: Signature) -> Mapping[str, str]:
        if not isinstance(raw, dict):
            raise self.fail('defaults_kept must be a dict of parameter name to the reason it keeps its default')
        with_defaults = {p.name for p in signature.parameters if p.has_default}
        for name, reason in raw.items():
            if name not in with_defaults:
                raise self.fail(f"defaults_kept names {name!r}, which is not a parameter with a default")
            if not isinstance(reason, str) or not reason.strip():
                raise self.fail(f"defaults_kept[{name!r}] must say why the default is never varied")
        return MappingProxyType(dict(raw))

    def _dtypes(self, dtypes: object) -> tuple[str, ...]:
        if not isinstance(dtypes, list) or not dtypes:
            raise self.fail("dtypes must be a non-empty list")
        for dtype in dtypes:
            if dtype not in DTYPES:
                raise self.fail(f"dtype {dtype!r} is not one of {', '.join(DTYPES)}")
        if len(set(dtypes)) != len(dtypes):
            raise self.fail("dtypes repeat")
        return tuple(dtypes)

    def _workloads(self, raw: object) -> tuple[Workload, ...]:
        if isinstance(raw, str):  # a named preset (kbx.tasks.presets)
            preset = presets.workload_list(raw)
            if preset is None:
                raise self.fail(f"workloads names no preset: {raw!r} (presets: {', '.join(presets.PRESETS)})")
            raw = preset
        if not isinstance(raw, list):
            raise self.fail("workloads must be a list, or the name of a preset")
        workloads = []
        for i, item in enumerate(raw):
            if not isinstance(item, dict) or not {"name", "role"} <= item.keys():
                raise self.fail(f"workload #{i} must be a dict with name, role and params")
            if item.keys() - _WORKLOAD_KEYS:
                raise self.fail(f"workload {item['name']!r} has unknown keys")
            if item["role"] not in ROLES:
                raise self.fail(f"workload {item['name']!r} has role {item['role']!r}, not one of {ROLES}")
            params = item.get("params", {})
            if not isinstance(params, dict):
                raise self.fail(f"workload {item['name']!r} params must be a dict")
            workloads.append(Workload(item["name"], item["role"], MappingProxyType(dict(params)),
                                      self._min_gpu_gib(item), self._timed(item)))
        names = [w.name for w in workloads]
        if len(set(names)) != len(names):
            raise self.fail("workload names repeat")
        for role in ROLES:
            if not any(w.role == role for w in workloads):
                raise self.fail(f"needs at least one {role!r} workload")
        return tuple(workloads)

    def _min_gpu_gib(self, item: dict[str, Any]) -> float | None:
        """A workload's `min_gpu_gib`, validated: a positive number, on a bench workload only (a GPU that skips a
        check workload would judge less than the contract says)."""
        value = item.get("min_gpu_gib")
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise self.fail(f"workload {item['name']!r}: min_gpu_gib must be a positive number of GiB")
        if item["role"] != "bench":
            raise self.fail(f"workload {item['name']!r}: only a bench workload may name min_gpu_gib")
        return float(value)

    def _timed(self, item: dict[str, Any]) -> bool:
        """A workload's `timed`, validated: true or false, and false on a bench workload only."""
        value = item.get("timed", True)
        if not isinstance(value, bool):
            raise self.fail(f"workload {item['name']!r}: timed must be true or false")
        if not value and item["role"] != "bench":
            raise self.fail(f"workload {item['name']!r}: only a bench workload is timed")
        return value


def _bound_names(node: ast.stmt) -> set[str]:
    """Names a top-level statement binds (definitions, assignments, imports)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return {n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}
