"""On the CPU, a kernel the interpreter runs must also be a kernel Triton would compile for a GPU.

The CPU interpreter (`TRITON_INTERPRET=1`) runs a `@triton.jit` function's body as Python. A body that calls torch
on a block, turns a block into a list (`.tolist()`), branches in Python on a block's values, or uses lambdas,
`try` or list comprehensions therefore runs, and computes, on the CPU, although no GPU would ever compile it: a
Python function passed off as a kernel. Before the first launch of each specialization (argument types and
constexpr values), Triton's own frontend lowers the kernel to Triton IR for a CUDA target, which needs no GPU. A
failure for a reason that no Triton version accepts (`_NEVER_TRITON`) stops the launch with `NotTriton`, which the
worker reports as REJECTED_RUNTIME (`runtime.not_triton`).

Frontend failures of any other kind are let through: the CPU's Triton (3.9) and the GPU's (3.6) differ in their
APIs (block pointers, removed in 3.7, fail the 3.9 frontend while the GPU compiles them), and a false rejection is
as bad as a false pass. The GPU, which compiles every kernel, is the authority there. Like every check inside the
candidate's process, this one is a warning (docs/anticheat.md): code that patches the worker could switch it off,
which the static rules and guards stand against.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import re
import types
from collections.abc import Iterator
from typing import Any

_NEVER_TRITON = (
    (r"'tensor' object has no attribute '(?!advance')", "a Python or torch method called on a Triton block"),
    (r"'value' object has no attribute", "a block's IR handle used as Python data (`.handle`)"),
    (r"must be Tensor, not tensor", "a torch function called on a Triton block"),
    (r"unsupported AST node type", "Python that Triton does not compile"),
    (r"only tuple comprehensions are supported", "a list, set or dict comprehension"),
    (r"Boolean value of Tensor with more than one value is ambiguous", "a Python branch on a block's values"),
    (r"object has no attribute append", "a Python list built in a kernel"),
)
"""(pattern in the frontend's error, what it means): failures of Python that is not Triton in any version. The
block methods of the GPU's Triton 3.6 that 3.9 lacks (`advance`, of block pointers; compared from both versions'
sources) are excepted."""


class NotTriton(Exception):  # noqa: N818 - named for the verdict it carries, like the worker's TraceLost
    """A kernel launched under the interpreter that a GPU's Triton would refuse to compile."""


def install_gpu_frontend_check() -> None:
    """Check every interpreted launch (idempotent); CPU interpreter only."""
    from triton.runtime.interpreter import InterpretedFunction

    if getattr(InterpretedFunction, "_kbx_frontend_checked", False):
        return
    original = InterpretedFunction.run
    verdicts: dict[Any, str | None] = {}
    language = _Language()

    def run(self: Any, *args: Any, grid: Any, warmup: Any, **kwargs: Any) -> Any:
        if not warmup:
            why = _verdict(self, args, kwargs, verdicts, language)
            if why is not None:
                raise NotTriton(why)
        return original(self, *args, grid=grid, warmup=warmup, **kwargs)

    InterpretedFunction.run = run
    InterpretedFunction._kbx_frontend_checked = True


_LANGUAGE = ("triton.language", "triton.language.core", "triton.language.standard", "triton.language.math",
             "triton.language.random", "triton.language.extra.cuda.libdevice", "triton.language.extra.libdevice")
"""The modules whose namespaces the interpreter rewrites: under `TRITON_INTERPRET=1` their `@jit` functions
(`tl.zeros`, `tl.sum`, ...) are `InterpretedFunction`s, and every interpreted launch or device-function call
replaces their builtins and the block's methods with the interpreter's (a device-function call never puts them
back); and libdevice's, which `kbx.evaluation.candidate.libdevice` binds for the interpreter."""


class _Language:
    """Triton's language as the frontend needs it, put in place for the length of a check and taken back after:
    each namespace as it was when the check was installed (before any candidate code ran), with its `@jit`
    functions as `JITFunction`s."""

    def __init__(self) -> None:
        modules = [importlib.import_module(name) for name in _LANGUAGE]
        core = importlib.import_module("triton.language.core")
        self._owners: list[Any] = [*modules, core.tensor, core.tensor_descriptor_base]
        self._pristine = [dict(vars(owner)) for owner in self._owners]
        self._jit: dict[Any, Any] = {}

    @contextlib.contextmanager
    def for_the_frontend(self) -> Iterator[None]:
        saved = [dict(vars(owner)) for owner in self._owners]
        for owner, pristine in zip(self._owners, self._pristine):
            _become(owner, {name: self._compiled(value) for name, value in pristine.items()})
        try:
            yield
        finally:
            for owner, namespace in zip(self._owners, saved):
                _become(owner, namespace)

    def _compiled(self, value: Any) -> Any:
        from triton.runtime.interpreter import InterpretedFunction
        from triton.runtime.jit import JITFunction

        value = _forwarded(value, InterpretedFunction)
        if not isinstance(value, InterpretedFunction):
            return value
        if value not in self._jit:
            self._jit[value] = JITFunction(value.fn)
        return self._jit[value]


def _forwarded(value: Any, interpreted: type) -> Any:
    """The `@jit` function a block method forwards to, or `value` itself. Triton makes `x.sum(axis=0)` a method by
    setting the `@jit` function on its block class, but under the interpreter `@jit` gives an
    `InterpretedFunction`, which the class gets wrapped in a plain forwarding function (`_tensor_member_fn`). Left
    so, the frontend called the interpreter's `sum` on IR values and rejected honest kernels (2026-11-28)."""
    cells = getattr(value, "__closure__", None) or ()
    if not inspect.isfunction(value) or len(cells) != 1:
        return value
    try:
        inner = cells[0].cell_contents
    except ValueError:  # an empty cell
        return value
    return inner if isinstance(inner, interpreted) else value


def _become(owner: Any, namespace: dict[str, Any]) -> None:
    """Make `owner`'s attributes exactly `namespace` (only the ones that differ are touched)."""
    current = dict(vars(owner))
    for name in current.keys() - namespace.keys():
        delattr(owner, name)
    for name, value in namespace.items():
        if current.get(name, _MISSING) is not value:
            setattr(owner, name, value)


_MISSING = object()


def _verdict(
    kernel: Any, args: tuple[Any, ...], kwargs: dict[str, Any], verdicts: dict[Any, str | None], language: _Language
) -> str | None:
    """Why `kernel` launched with these arguments is not Triton, or None (also when it cannot be checked). Each
    specialization goes through the frontend once."""
    try:
        signature, constants = specialization(kernel.fn, args, kwargs)
        key = (kernel.fn, tuple(signature.items()), repr(sorted(constants.items())))
    except Exception:  # arguments this check does not model (descriptors, exotic types): left to the GPU
        return None
    if key not in verdicts:
        with language.for_the_frontend():
            verdicts[key] = _frontend(kernel.fn, signature, constants)
    return verdicts[key]


def specialization(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[dict[str, str], dict[Any, Any]]:
    """Triton's signature of one launch (parameter -> `*fp32`, `i32`, `constexpr`, ...) and its constexpr values,
    keyed by parameter position as the frontend wants them. Launch options (`num_warps`, ...) are dropped."""
    from triton.runtime.jit import mangle_type

    parameters = list(inspect.signature(fn).parameters.values())
    names = {p.name for p in parameters}
    bound = inspect.signature(fn).bind(*args, **{k: v for k, v in kwargs.items() if k in names})
    bound.apply_defaults()
    signature: dict[str, str] = {}
    constants: dict[Any, Any] = {}
    for index, parameter in enumerate(parameters):
        value = bound.arguments[parameter.name]
        annotated = parameter.annotation is not inspect.Parameter.empty and "constexpr" in str(parameter.annotation)
        signature[parameter.name] = "constexpr" if annotated else mangle_type(value)
        if signature[parameter.name] == "constexpr":
            constants[(index,)] = value
    return signature, constants


def _frontend(fn: Any, signature: dict[str, str], constants: dict[Any, Any]) -> str | None:
    """Lower `fn` to Triton IR for a CUDA target; the reason it is not Triton, or None."""
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.compiler.compiler import make_backend

    target = GPUTarget("cuda", 90, 32)
    backend = make_backend(target)
    options = backend.parse_options({})
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    try:
        source = ASTSource(_as_jit(fn, {}), signature, constants)
        source.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(),
                       context)
    except Exception as exc:
        return _never_triton(fn.__name__, exc)
    return None


def _never_triton(name: str, exc: BaseException) -> str | None:
    """The rejection for a frontend failure that no Triton version would accept; None for any other failure."""
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and seen not in chain:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    for pattern, meaning in _NEVER_TRITON:
        found = next((e for e in chain if re.search(pattern, str(e))), None)
        if found is not None:
            detail = str(found).strip().splitlines()[-1][:200]
            return (f"runtime.not_triton: kernel `{name}` runs under the CPU interpreter but would not compile for a "
                    f"GPU: {meaning} ({detail})")
    return None


def _as_jit(fn: Any, made: dict[Any, Any]) -> Any:
    """A `JITFunction` of the Python function `fn` for the frontend, whose globals name the `JITFunction`s of the
    other interpreted kernels it calls (under the interpreter they are `InterpretedFunction`s, which the frontend
    would take for plain Python). The candidate's own module globals are not changed: `fn` is copied."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    if fn in made:
        return made[fn]
    scope = dict(fn.__globals__)
    copy = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    made[fn] = JITFunction(copy)
    for name, value in list(scope.items()):
        if isinstance(value, InterpretedFunction):
            scope[name] = _as_jit(value.fn, made)
    return made[fn]
