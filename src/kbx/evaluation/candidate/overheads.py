"""Work Triton's interpreter does that changes no result, left out (installed by `kbx.evaluation.candidate.
interpreter` with its other shims; measured by `benchmarks/interpreter_overheads.py`, which swaps the attributes
`overhead_patches` names between upstream's values and these).

Each shim keeps upstream's semantics exactly: the same values come out, fewer Python objects are built on the way.
They live inside the candidate's process and decide nothing: a candidate that undoes them only slows itself.
"""

from __future__ import annotations

from typing import Any


def overhead_patches() -> list[tuple[Any, str]]:
    """The (owner, attribute) pairs `install_overhead_shims` replaces, for `benchmarks/interpreter_overheads.py`
    to swap between upstream's values and the shims'."""
    import triton.language as tl
    from triton.language.semantic import TritonSemantic
    from triton.runtime import interpreter

    return [(interpreter.interpreter_builder, "options"), (interpreter, "_get_np_dtype"),
            (interpreter.InterpreterBuilder, "get_block_ty"), (tl.core.block_type, "with_element_ty"),
            (tl.core.tensor, "__init__"), (TritonSemantic, "broadcast_impl_value"), (tl.core.dtype, "__eq__")]


def install_overhead_shims() -> None:
    """Costs of the interpreter that change no result: the integer-overflow check of every int32 `+`, `-`, `*`
    (computed in int64, compared, and handed to a `device_assert` that returns at once unless `debug` is on: half
    of an honest conv3d's time) is skipped where `debug` is off, as a GPU's compiler drops it; the numpy dtype of
    a Triton dtype is looked up in a table built once, not in a new dict each call (a tenth of the time); and block
    types and tensor shapes are made once per (element type, shape) (`_shim_types`), and same-shaped operands are
    not broadcast (`_shim_same_shapes`)."""
    import dataclasses

    from triton.runtime import interpreter

    if getattr(interpreter, "_kbx_overheads_shimmed", False):
        return
    builder = interpreter.interpreter_builder
    if not builder.options.debug:
        builder.options = dataclasses.replace(builder.options, sanitize_overflow=False)
    interpreter._get_np_dtype = _interned(interpreter._get_np_dtype)
    _shim_types()
    _shim_same_shapes()
    interpreter._kbx_overheads_shimmed = True


def _interned(make: Any) -> Any:
    """`make(*key)`, made once per hashable key and shared; an unhashable key (a pointer type) is made each time."""
    known: dict[Any, Any] = {}

    def interned(*key: Any) -> Any:
        try:
            return known[key]
        except KeyError:
            found = known[key] = make(*key)
            return found
        except TypeError:
            return make(*key)

    return interned


_TENSOR_INIT = '''
def __init__(self, handle, type: dtype):
    """Not called by user code."""
    super().__init__()
    # IR handle
    self.handle = handle
    # Block shape
    self.shape = type.shape if type.is_block() else ()
    self.numel = constexpr(math.prod(self.shape))
    self.type = type  # Tensor type (can be block_type)
    # Following the practice in pytorch, dtype is scalar type
    self.dtype = type.scalar
    self.shape = tuple([constexpr(s) for s in self.shape])
'''
"""Upstream's `tensor.__init__` in Triton 3.9.0 (the pinned CPU Triton), which `_shim_types` replaces with the same
assignments from shared values; another Triton's is left as it is."""


def _shim_types() -> None:
    """A block type is built with its shape as a `tl.tuple` (a type computed over constexprs) and a name string, and
    every tensor builds a `tl.tuple` of constexprs for its shape and a constexpr for its size: per operation, per
    program of the grid. Types compare by value and nothing mutates them or a tensor's shape, so one of each per
    (element type, shape) is shared."""
    import inspect
    import math
    import textwrap

    import triton.language as tl
    from triton.runtime.interpreter import InterpreterBuilder

    core = tl.core
    block_type = _interned(lambda dtype, dims: core.block_type(dtype, list(dims)))  # a list: core's `tuple` is tl's
    InterpreterBuilder.get_block_ty = lambda self, dtype, shape: block_type(dtype, tuple(core._unwrap_shape(shape)))
    core.block_type.with_element_ty = lambda self, scalar_ty: block_type(scalar_ty, tuple(self.shape))
    if textwrap.dedent(inspect.getsource(core.tensor.__init__)).strip() != _TENSOR_INIT.strip():
        return
    shape_of = _interned(lambda dims: (core.constexpr(math.prod(dims)), core.tuple([core.constexpr(d) for d in dims])))

    def tensor_init(self: Any, handle: Any, type: Any) -> None:  # noqa: A002 - upstream's parameter name
        self.handle = handle
        self.numel, self.shape = shape_of(tuple(type.shape) if type.is_block() else ())
        self.type = type
        self.dtype = type.scalar

    core.tensor.__init__ = tensor_init


def _shim_same_shapes() -> None:
    """Every binary operation broadcasts its operands first, and upstream's broadcast compares their shapes through
    `tl.tuple`s (each comparison normalises and rebuilds both) even when they are the same: it then returns both
    operands as they were, which is what the shim returns at once for two blocks of one shape or two scalars. A
    dtype compared with itself is equal (upstream unwraps and compares names). Everything else goes to upstream."""
    import triton.language as tl
    from triton.language.semantic import TritonSemantic

    broadcast = TritonSemantic.broadcast_impl_value

    def broadcast_impl_value(self: Any, lhs: Any, rhs: Any) -> Any:
        lhs_ty, rhs_ty = lhs.type, rhs.type
        lhs_block, rhs_block = lhs_ty.is_block(), rhs_ty.is_block()
        if lhs_block == rhs_block and (not lhs_block or lhs_ty.shape.values == rhs_ty.shape.values):
            return lhs, rhs
        return broadcast(self, lhs, rhs)

    TritonSemantic.broadcast_impl_value = broadcast_impl_value
    dtype_eq = tl.core.dtype.__eq__
    tl.core.dtype.__eq__ = lambda self, other: other is self or dtype_eq(self, other)
