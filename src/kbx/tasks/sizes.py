"""Perturbed check sizes (DESIGN §4): running a task's `perturb(workload, rng)`, and the helpers it may use.

For every `check` workload of a task that defines `perturb`, each run evaluates one more copy whose sizes are
drawn from the run's secret seed, so a candidate cannot hard-code the shapes published in task.py. The copy is a
pure function of (task.py, workload, secret seed): a run is reproducible from the seed recorded in run.json.

`perturb` is pure Python on plain values. The orchestrator, which never imports torch, runs it compiled from its
source alone: only its arguments, builtins and `PERTURB_GLOBALS` (`math` and this module, as `sizes`) are in
scope, never the rest of task.py. The helpers draw with `rng.random()` only, the one method whose sequence Python
promises to keep across versions.
"""

from __future__ import annotations

import ast
import builtins
import functools
import hashlib
import json
import math
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from kbx.errors import TaskError
from kbx.tasks.spec import PERTURBED_SUFFIX, Task, Workload, reduction_length_of

PERTURB_PARAMS = ("workload", "rng")

_BINDING_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler)


def perturb_globals() -> dict[str, Any]:
    """The module-level names `perturb` may use besides builtins."""
    return {"math": math, "sizes": sys.modules[__name__]}


def integer(rng: random.Random, low: int, high: int) -> int:
    """A uniform integer in [low, high]."""
    return low + min(int(rng.random() * (high - low + 1)), high - low)


def pick(rng: random.Random, options: Sequence[Any]) -> Any:
    """One of `options`, uniformly."""
    return options[integer(rng, 0, len(options) - 1)]


def odd_near(rng: random.Random, n: int, low: float = 0.5, high: float = 1.5, at_least: int = 1) -> int:
    """An odd size in [low * n, high * n] (and >= at_least), other than n itself wherever another exists.

    Odd sizes are never a multiple of a block size, so every perturbed size leaves a partial last block.
    """
    lo = max(math.ceil(low * n), at_least)
    hi = max(math.floor(high * n), lo)
    first = lo | 1
    count = (hi - first) // 2 + 1 if first <= hi else 0
    if count == 0:
        return lo
    skip = n % 2 == 1 and first <= n <= hi and count > 1
    value = first + 2 * integer(rng, 0, count - 1 - skip)
    return value + 2 if skip and value >= n else value


def multiple_near(rng: random.Random, n: int, multiple: int, low: float = 0.5, high: float = 1.5) -> int:
    """A multiple of `multiple` in [low * n, high * n] (at least `multiple`), other than n wherever another exists:
    for workloads that exist to exercise aligned sizes."""
    lo = max(math.ceil(low * n / multiple), 1)
    hi = max(math.floor(high * n / multiple), lo)
    skip = n % multiple == 0 and lo <= n // multiple <= hi and hi > lo
    value = integer(rng, lo, hi - skip)
    return multiple * (value + 1 if skip and value >= n // multiple else value)


def shape_near(
    rng: random.Random,
    shape: Sequence[int],
    *,
    keep: Sequence[int] = (),
    at_least: Mapping[int, int] | None = None,
    cost: Callable[[list[int]], float | Sequence[float]] | None = None,
) -> list[int]:
    """`shape` with each size moved by `odd_near`, costing no more than `shape` itself, so a perturbed case never
    costs the interpreter more than the published one.

    Args:
        rng: the generator `perturb` was given.
        shape: the published sizes (or any list of sizes that move together, e.g. [B, M, K, N]).
        keep: positions (negative ones count from the end) that stay as they are; sizes of 1 (broadcast
            dimensions) always stay.
        at_least: lower bounds by position, e.g. `{-1: kernel_width}`.
        cost: a function of the sizes returning a number or a tuple of numbers (e.g. multiply-adds and input
            elements), none of which may exceed the published sizes' own; draws that do are redrawn. Default: the
            number of elements.
    """
    rank = len(shape)
    kept = {k % rank for k in keep} | {i for i, n in enumerate(shape) if n == 1}
    floor = {k % rank: v for k, v in (at_least or {}).items()}
    measure = cost or math.prod
    limit = _as_tuple(measure(list(shape)))
    for _ in range(100):
        candidate = [n if i in kept else odd_near(rng, n, at_least=floor.get(i, 1)) for i, n in enumerate(shape)]
        if all(c <= bound for c, bound in zip(_as_tuple(measure(candidate)), limit)):
            return candidate
    return list(shape)  # practically unreachable; the published sizes always fit


def declared_perturb(param: str) -> str:
    """The source of the `perturb` that `TASK["perturb"] = PARAM` declares: the shape parameter PARAM of a check
    workload moved to odd sizes near the published ones (`shape_near`: never more elements), every other parameter
    as published. Most tasks need no other rule."""
    return (f"def perturb(workload, rng):\n"
            f"    return {{**workload.params, {param!r}: sizes.shape_near(rng, workload.params[{param!r}])}}\n")


def perturb_rng(secret_seed: int, task: str, workload: str) -> random.Random:
    """The generator `perturb` gets for one workload: mixes the secret seed with the task and workload names."""
    digest = hashlib.sha256(f"{secret_seed}:{task}:{workload}:perturb".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "little"))


def perturbed(task: Task, workload: Workload, secret_seed: int) -> Workload:
    """The copy of `workload` with sizes drawn from `secret_seed` by the task's `perturb`.

    Raises:
        TaskError: the task has no `perturb`, or it raised or returned something other than a dict of JSON-like
            params (with the contract's reduction length).
    """
    if not task.perturb_source:
        raise TaskError(task.task_file, "has no perturb(workload, rng)")
    where = f"perturb({workload.name!r})"
    private = Workload(workload.name, workload.role, MappingProxyType(_json_copy(dict(workload.params))))
    try:
        params = _compiled(task.perturb_source, str(task.task_file))(
            private, perturb_rng(secret_seed, task.name, workload.name)
        )
    except Exception as exc:
        raise TaskError(task.task_file, f"{where} raised {type(exc).__name__}: {' '.join(str(exc).split())}") from None
    if not isinstance(params, dict):
        raise TaskError(task.task_file, f"{where} returned {type(params).__name__}, not a dict of params")
    try:
        params = _json_copy(params)
    except (TypeError, ValueError) as exc:
        raise TaskError(task.task_file, f"{where} returned params that are not JSON-like: {exc}") from None
    length = task.contract.reduction_length
    if length is not None:
        try:
            reduction_length_of(length, params)
        except (KeyError, ValueError) as exc:
            raise TaskError(task.task_file, f"{where} dropped the reduction_length {length!r}: {exc}") from None
    return Workload(workload.name + PERTURBED_SUFFIX, workload.role, MappingProxyType(params))


def free_names(func: ast.FunctionDef) -> set[str]:
    """Names a function reads that it does not bind itself and that are not builtins (an over-approximation of
    Python's scoping: any name bound anywhere inside counts as bound)."""
    bound: set[str] = set()
    loaded: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, _BINDING_NODES) and node is not func and node.name:
            bound.add(node.name)
    return loaded - bound - set(dir(builtins))


def _as_tuple(value: float | Sequence[float]) -> tuple[float, ...]:
    return tuple(value) if isinstance(value, Sequence) else (value,)


def _json_copy(params: dict[str, Any]) -> dict[str, Any]:
    """A deep copy in the form the workers receive (tuples become lists); raises on non-JSON values."""
    return json.loads(json.dumps(params, allow_nan=False))


@functools.lru_cache(maxsize=64)
def _compiled(source: str, filename: str) -> Callable[[Workload, random.Random], Any]:
    namespace: dict[str, Any] = {"__builtins__": builtins, **perturb_globals()}
    exec(compile(source, filename, "exec"), namespace)  # trusted task code, checked by kbx.tasks.meta
    return namespace["perturb"]
