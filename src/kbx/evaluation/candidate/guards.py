"""Runtime anti-cheat guards inside the candidate worker (issue 4, runtime layer).

`Guards` is built before the candidate is imported and checked after the import and after every call:
- launches: every Triton kernel launch goes through `JITFunction.run` (or the interpreter's
  `InterpretedFunction.run`); both are wrapped here to record which kernel ran. Each call must launch at least one
  kernel defined by the candidate module, and no kernel defined elsewhere (torch.compile's Inductor, a library),
  unless the candidate is the task's own reference code (`own_kernels` False: `kbx.candidates.policy`);
- identities: the functions the harness relies on (torch, torch.cuda, torch.Tensor, time, json, os, triton, the
  worker's own helpers, builtins) are snapshotted; any that has been replaced or removed is a patch;
- outputs: plain dense `torch.Tensor`s on the device, sharing no memory with an input, with another output, or
  with an output of an earlier call that the candidate kept (memoisation);
- threads: no Python thread outlives the import or a call.

These checks run in the candidate's own process, so code clever enough can defeat them; they raise the cost of a
trick and name it when they catch it. The verdict itself never depends on them alone: outputs are judged by the
trusted worker on freshly drawn inputs.
"""

from __future__ import annotations

import builtins
import copyreg
import json
import os
import sys
import threading
import time
import weakref
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import torch

from kbx.evaluation.outputs import output_items

CANDIDATE_MODULE = "candidate"
"""The module name the candidate is imported under; its kernels carry it as `__module__`."""


@dataclass(frozen=True)
class RuntimeViolation:
    """A broken runtime rule; `message()` is what the verdict shows."""

    rule: str
    detail: str

    def message(self) -> str:
        return f"runtime.{self.rule}: {self.detail}"


class LaunchRecorder:
    """Wraps the launch entry points of Triton's JIT and interpreter to record each launched kernel."""

    def __init__(self) -> None:
        self.launches: list[str] = []
        """`module.qualname` of every kernel launched since the last `reset()` (warm-up compiles excluded)."""
        self._classes = _launch_classes()
        for cls in self._classes:
            cls.run = self._wrap(cls.run)

    def reset(self) -> None:
        self.launches.clear()

    def _wrap(self, original: Any) -> Any:
        launches = self.launches

        def run(kernel: Any, *args: Any, **kwargs: Any) -> Any:
            if not kwargs.get("warmup", False):
                fn = getattr(kernel, "fn", None)
                launches.append(f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}")
            return original(kernel, *args, **kwargs)

        run.__kbx_launch_recorder__ = True  # type: ignore[attr-defined]
        return run


def _launch_classes() -> list[type]:
    from triton.runtime.jit import JITFunction

    classes: list[type] = [JITFunction]
    try:
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:  # a Triton without the interpreter
        return classes
    classes.append(InterpretedFunction)
    return classes


class Guards:
    """Everything the candidate worker checks at run time; build it before importing the candidate."""

    def __init__(self, device: str, watched: list[ModuleType | type], denied: list[str] | None = None,
                 own_kernels: bool = True) -> None:
        """`watched`: extra modules/classes (the worker's own helpers) whose callables must stay as they are;
        `denied`: the list the audit hook records denials in (`kbx.evaluation.candidate.audit`); `own_kernels`:
        whether every call must launch the candidate's own Triton kernels and no others (False only under
        `Policy.REFERENCE_CODE`, as the orchestrator's job spec says)."""
        self.device = device
        self.own_kernels = own_kernels
        self._denied = [] if denied is None else denied
        self._dispatch = dict(copyreg.dispatch_table)
        self.launches = LaunchRecorder()
        self._threads = threading.active_count()
        self._identities = _snapshot([*_harness_namespaces(), *watched])
        self._earlier_outputs: list[weakref.ref[torch.Tensor]] = []

    def before_call(self) -> None:
        self.launches.reset()

    def after_import(self) -> RuntimeViolation | None:
        return self._patched() or self._threads_left("importing the candidate")

    def after_call(self, result: Any, inputs: dict[str, Any]) -> RuntimeViolation | None:
        """The first rule the call broke, or None; remembers the outputs to detect reuse by later calls."""
        violation = (
            self._patched()
            or self._threads_left("the call")
            or self._launch_violation()
            or self._output_violation(result, inputs)
        )
        alive = [ref for ref in self._earlier_outputs if ref() is not None]
        fresh = [weakref.ref(t) for t in output_items(result) if isinstance(t, torch.Tensor)]
        self._earlier_outputs = alive + fresh
        return violation

    def after_timing(
        self, calls: int, last_output: Any, last_inputs: dict[str, Any], earlier: list[torch.Tensor]
    ) -> RuntimeViolation | None:
        """The first rule broken while the candidate was called `calls` times in a row to be timed; `earlier`:
        outputs of the calls just before the last that are still alive (a cache keeps them alive)."""
        own = [k for k in self.launches.launches if k.startswith(CANDIDATE_MODULE + ".")]
        if self.own_kernels and len(own) < calls:
            return RuntimeViolation(
                "no_kernel_launch",
                f"{calls} timed calls launched only {len(own)} kernels of the candidate's: some calls did no GPU work",
            )
        self._earlier_outputs += [weakref.ref(t) for t in earlier]
        return self.after_call(last_output, last_inputs)

    def _patched(self) -> RuntimeViolation | None:
        if self._denied:
            return RuntimeViolation("denied", f"the sandbox denied {self._denied[0]}")
        changed = _changed(self._identities)
        if _reducers_changed(self._dispatch):
            changed.append("copyreg.dispatch_table")
        if changed:
            return RuntimeViolation(
                "patched", f"{', '.join(changed[:5])} replaced at run time: the harness relies on these functions"
            )
        return None

    def _threads_left(self, when: str) -> RuntimeViolation | None:
        now = threading.active_count()
        if now > self._threads:
            return RuntimeViolation(
                "thread_started", f"{now - self._threads} thread(s) still running after {when}: work outside the call"
            )
        return None

    def _launch_violation(self) -> RuntimeViolation | None:
        if not self.own_kernels:
            return None
        launched = self.launches.launches
        foreign = sorted({k for k in launched if not k.startswith(CANDIDATE_MODULE + ".")})
        if foreign:
            return RuntimeViolation(
                "foreign_kernel", f"launched kernels not defined by the candidate: {', '.join(foreign[:3])}"
            )
        if not launched:
            return RuntimeViolation("no_kernel_launch", "the call launched no Triton kernel of the candidate's")
        return None

    def _output_violation(self, result: Any, inputs: dict[str, Any]) -> RuntimeViolation | None:
        items = output_items(result)
        input_memory = {_storage(t) for t in inputs.values() if isinstance(t, torch.Tensor) and t.numel() > 0}
        earlier = {_storage(t) for ref in self._earlier_outputs if (t := ref()) is not None and t.numel() > 0}
        seen: set[int] = set()
        for position, item in enumerate(items):
            if not isinstance(item, torch.Tensor):
                continue  # not a tensor at all: the trusted comparison reports the wrong type
            where = f"output {position}"
            if type(item) is not torch.Tensor:
                return RuntimeViolation(
                    "tensor_subclass", f"{where} is a {type(item).__name__}, not a plain torch.Tensor"
                )
            if item.layout is not torch.strided or item.is_quantized:
                return RuntimeViolation("output_layout", f"{where} has layout {item.layout}, not a dense tensor")
            if item.device.type != self.device:
                return RuntimeViolation(
                    "output_device", f"{where} is on {item.device}, not on the inputs' device ({self.device})"
                )
            if item.numel() == 0:
                continue
            memory = _storage(item)
            if memory in input_memory:
                return RuntimeViolation("output_aliases_input", f"{where} shares memory with an input")
            if memory in seen:
                return RuntimeViolation("output_aliases_output", f"{where} shares memory with another output")
            if memory in earlier:
                return RuntimeViolation(
                    "output_reused", f"{where} is memory returned by an earlier call: outputs must be computed anew"
                )
            seen.add(memory)
        return None


_SAVED_TYPES = (torch.Tensor, torch.nn.Parameter, torch.Size, torch.dtype, torch.device, torch.UntypedStorage)
"""What the worker's torch.save pickles: a reducer registered for one of these could run code at save time."""


def _reducers_changed(before: dict[Any, Any]) -> bool:
    """Whether a pickling reducer that existed was replaced or removed, or one was added for a type the worker
    saves (libraries register reducers for their own types lazily: sympy does, inside torch)."""
    now = copyreg.dispatch_table
    return any(now.get(cls) is not fn for cls, fn in before.items()) or any(
        now.get(cls) is not before.get(cls) for cls in _SAVED_TYPES
    )


def _storage(t: torch.Tensor) -> int:
    return t.untyped_storage().data_ptr()


def _harness_namespaces() -> list[ModuleType | type]:
    import triton
    import triton.runtime.jit

    spaces: list[ModuleType | type] = [
        builtins, json, os, sys, time, threading, weakref,
        torch, torch.cuda, torch.nn.functional, torch.testing, torch.Tensor, torch.cuda.Event, torch.Generator,
        triton, triton.runtime.jit, triton.runtime.jit.JITFunction,
    ]
    try:
        from triton.runtime.interpreter import InterpretedFunction

        spaces.append(InterpretedFunction)
    except ImportError:
        pass
    return spaces


def _snapshot(spaces: list[ModuleType | type]) -> list[tuple[ModuleType | type, dict[str, Any]]]:
    """For each namespace, its callable attributes as they are now (values compared by identity later)."""
    return [(space, {k: v for k, v in vars(space).items() if callable(v)}) for space in spaces]


def _changed(snapshot: list[tuple[ModuleType | type, dict[str, Any]]]) -> list[str]:
    changed = []
    for space, before in snapshot:
        now = vars(space)
        for name, value in before.items():
            if now.get(name) is not value:
                changed.append(f"{getattr(space, '__name__', space)}.{name}")
    return changed
