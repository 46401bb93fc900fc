"""The executable half of a KernelBench task: its inputs, its reference, and how a `ModelNew` candidate is called.

Runs in the workers only (torch). Both workers execute the problem file with the workload's sizes
(`kbx.tasks.kernelbench.sizes.rewrite`) and draw a case from its seed the same way:
- `get_init_inputs()`, then the module built from them, then `get_inputs()`, each under its own seed derived from
  the case's (torch's global generator, forked so nothing else sees it): the problems call `torch.randn` and
  `nn.Linear` without a generator, and KernelBench's own harness seeds the same way;
- the trusted worker builds `Model`; the candidate worker builds `Model` and then `ModelNew` from the same init seed
  and copies into `ModelNew` every parameter and buffer of `Model` whose name and shape it shares (`copy_weights`).
  One whose name it does not share keeps the value `ModelNew`'s own constructor drew from that seed, which equals
  `Model`'s when it creates the same layers in the same order (as KernelBench's harness relies on); otherwise the
  outputs differ and the verdict is MISMATCH;
- the module (in `Seeded`, which reseeds torch before a forward that draws random numbers) is the input `model`;
  the forward's arguments follow under their parameter names. `reference(model, **args)` calls it.

So the candidate's weights are made in its own process, from the case's seed, exactly as its inputs are; no
reference output ever reaches it. Constructing `ModelNew` is candidate code that runs outside the checked call:
an exception there is the candidate's failure (`CandidateCodeFailed`), and whatever it does is watched by the
same guards (a patch, a thread left running) at the next call.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
import types
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import torch

from kbx.syntax import parse
from kbx.tasks.kernelbench import sizes
from kbx.tasks.kernelbench.problem import GET_INIT_INPUTS, GET_INPUTS, MODEL
from kbx.tasks.module import CandidateCodeFailed, TaskCode
from kbx.tasks.spec import ModuleInterface, Task, Workload

_RANDOM = re.compile(r"^(rand|randn|randint|randperm|rand_like|randn_like|randint_like|bernoulli|multinomial|normal_?"
                     r"|uniform_|exponential_|dropout\w*|Dropout\w*|AlphaDropout|FeatureAlphaDropout)$")
"""Names whose use in a model's code means its forward may draw random numbers (so it is reseeded per call)."""
_KEPT_MODULES = 4
"""Executed problem modules kept per task (one per distinct sizes: bench, smoke, check, a perturbed check)."""


class Seeded(torch.nn.Module):
    """A case's module: reseeds torch's generators before a forward that draws random numbers (dropout, random
    initial states), so the reference is deterministic and a candidate drawing the same numbers in the same order
    gets the same ones."""

    def __init__(self, model: torch.nn.Module, seed: int | None) -> None:
        super().__init__()
        self.model = model
        self.seed = seed

    def forward(self, *args: Any) -> Any:
        if self.seed is not None:
            torch.manual_seed(self.seed)
        return self.model(*args)


def reference(model: Seeded, **inputs: Any) -> Any:
    """`Model(*init)(*inputs)`: the problem's own forward on the case's module and arguments. Called with float64
    arguments (the trusted worker's second opinion), it runs a float64 copy of the module."""
    args = tuple(inputs.values())
    return _widened(model, args)(*args)


def import_problem(task: Task, register: bool = False) -> TaskCode:
    """The task's code: the problem file is executed here (once per distinct sizes, as workloads ask), each time
    as a module of a private name, kept in `sys.modules` only with `register` (the trusted worker's: Dynamo looks a
    module class's module up there when it compiles the reference; the candidate worker's never are)."""
    problem = _Problem(task, register)
    return TaskCode(task=task, reference=reference, make_inputs=problem.make_inputs,
                    candidate_side=problem.candidate_side)


def copy_weights(source: torch.nn.Module, target: torch.nn.Module) -> list[str]:
    """Copy every parameter and buffer of `source` into the one of `target` with the same name and shape; the
    names of `target`'s that got no value (they keep their own)."""
    values = source.state_dict()
    kept = []
    with torch.no_grad():
        for name, tensor in target.state_dict(keep_vars=True).items():
            value = values.get(name)
            if value is not None and value.shape == tensor.shape and value.dtype == tensor.dtype:
                tensor.copy_(value)
            else:
                kept.append(name)
    return kept


class _Problem:
    """One problem file, executed once per distinct sizes."""

    def __init__(self, task: Task, register: bool) -> None:
        self.task = task
        self._register = register
        source = task.path.read_text(errors="replace")
        self._tree = parse(source, filename=str(task.path))
        self._random = _draws_randomly(self._tree)
        self._modules: OrderedDict[str, types.ModuleType] = OrderedDict()
        assert task.module is not None
        self._forward = task.module.forward.names

    def make_inputs(self, workload: Workload, dtype: str, generator: torch.Generator) -> dict[str, Any]:
        """The trusted worker's inputs of a case: `Model` built from the case's init seed, and the forward's
        arguments."""
        return self._draw(workload, dtype, generator, None)

    def candidate_side(self, entry: Any) -> tuple[Callable[..., Any], Callable[..., dict[str, Any]]]:
        """What the candidate worker calls (`call(**inputs)`) and how it makes a case's inputs, given the
        candidate's `ModelNew` class."""

        def make_inputs(workload: Workload, dtype: str, generator: torch.Generator) -> dict[str, Any]:
            return self._draw(workload, dtype, generator, entry)

        return _call, make_inputs

    def _draw(self, workload: Workload, dtype: str, generator: torch.Generator, candidate: Any) -> dict[str, Any]:
        module = self._module(workload)
        device, base = generator.device, generator.initial_seed()
        init = _seeded(_seed(base, "init"), getattr(module, GET_INIT_INPUTS))
        built = self._build(module, init, _seed(base, "weights"), candidate)
        built = built.to(device=device, dtype=getattr(torch, dtype))
        args = _seeded(_seed(base, "inputs"), getattr(module, GET_INPUTS))
        forward_seed = _seed(base, "forward") if self._random else None
        inputs: dict[str, Any] = {ModuleInterface.INPUT: Seeded(built, forward_seed)}
        for index, value in enumerate(args):
            name = self._forward[index] if index < len(self._forward) else f"input{index}"
            inputs[name] = _placed(value, device, dtype)
        return inputs

    def _build(self, module: types.ModuleType, init: Any, seed: int, candidate: Any) -> torch.nn.Module:
        """`Model(*init)` from `seed`; with a candidate class, that class built from the same seed, with Model's
        weights copied in."""
        model = _seeded(seed, lambda: getattr(module, MODEL)(*init))
        if candidate is None:
            return _frozen(model)
        try:
            built = _seeded(seed, lambda: candidate(*init))
            if not isinstance(built, torch.nn.Module):
                raise TypeError(f"{ModuleInterface.CLASS}(*get_init_inputs()) is a {type(built).__name__}, not an "
                                "nn.Module")
            copy_weights(model, built)
        except Exception as exc:
            raise CandidateCodeFailed(f"{ModuleInterface.CLASS}(*get_init_inputs()) failed: "
                                      f"{type(exc).__name__}: {exc}") from exc
        return _frozen(built)

    def _module(self, workload: Workload) -> types.ModuleType:
        """The problem executed with the workload's sizes (as published for the bench workload)."""
        values = {**workload.params.get("sizes", {}), **workload.params.get("divisors", {})}
        key = json.dumps(values, sort_keys=True)
        if key in self._modules:
            self._modules.move_to_end(key)
            return self._modules[key]
        tree = sizes.rewrite(self._tree, values)
        name = f"_kbx_problem_{hashlib.sha256((self.task.version + key).encode()).hexdigest()[:12]}"
        module = types.ModuleType(name)
        module.__file__ = str(self.task.path)
        sys.modules[name] = module  # dataclasses and the like look their module up while it runs
        try:
            exec(compile(tree, str(self.task.path), "exec"), module.__dict__)  # trusted: the user's own checkout
        finally:
            if not self._register:
                sys.modules.pop(name, None)
        self._modules[key] = module
        while len(self._modules) > _KEPT_MODULES:
            _, old = self._modules.popitem(last=False)
            sys.modules.pop(old.__name__, None)
        return module


def _call(model: Seeded, **inputs: Any) -> Any:
    """The candidate worker's call: the case's `ModelNew` on the forward's arguments."""
    return model(*inputs.values())


def _widened(model: Seeded, args: tuple[Any, ...]) -> Seeded:
    """`model`, or a float64 copy of it when the arguments are float64 and it is not."""
    wide = any(isinstance(a, torch.Tensor) and a.dtype == torch.float64 for a in args)
    floating = [t for t in [*model.parameters(), *model.buffers()] if t.is_floating_point()]
    if not wide or not floating or floating[0].dtype == torch.float64:
        return model
    import copy

    return copy.deepcopy(model).double()


def _seed(base: int, purpose: str) -> int:
    digest = hashlib.sha256(f"{base}:{purpose}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & ((1 << 63) - 1)


def _seeded(seed: int, make: Callable[[], Any]) -> Any:
    """`make()` with torch's generators seeded, restored afterwards."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return make()


def _frozen(model: torch.nn.Module) -> torch.nn.Module:
    """Parameters need no gradients: a forward is only ever evaluated."""
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    return model


def _placed(value: Any, device: torch.device, dtype: str) -> Any:
    """A forward argument on the case's device, floating-point tensors in the case's dtype."""
    if not isinstance(value, torch.Tensor):
        return value
    if value.is_floating_point():
        return value.to(device=device, dtype=getattr(torch, dtype))
    return value.to(device=device)


def _draws_randomly(tree: ast.Module) -> bool:
    """Whether the code besides `get_inputs` and `get_init_inputs` names a random draw or dropout."""
    body = [n for n in tree.body if not (isinstance(n, ast.FunctionDef) and n.name in (GET_INPUTS, GET_INIT_INPUTS))]
    for node in (n for statement in body for n in ast.walk(statement)):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        if name is not None and _RANDOM.match(name):
            return True
    return False
