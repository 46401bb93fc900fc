"""Block pointers under the CPU interpreter of a Triton that no longer has them.

`tl.make_block_ptr`, `tl.advance` and `tl.load`/`tl.store` with `boundary_check`/`padding_option` compile on the
GPU's Triton (3.6), but Triton 3.7 removed them in favour of tensor descriptors: on the CPU's pinned Triton (3.9)
`make_block_ptr` raises NotImplementedError and `tl.load` refuses the `boundary_check` keyword, so an honest kernel
written for the GPU would fail on the CPU for a reason of the version alone. Pinning the CPU to 3.6 instead would
bring back that version's own interpreter gaps (and the bf16 shims were written against 3.9), so the shim
re-creates the 3.6 semantics on top of the interpreter instead, the way 3.6 lowered a block pointer itself (its
interpreter's `BlockPointerHandle` and the compiler's RewriteTensorPointer pass): a tensor of pointers
`base + sum_d (offset_d + arange(block_d)) * stride_d` in 64-bit arithmetic, and for each dimension named in
`boundary_check` a mask `0 <= offset_d + i < shape_d`, whose masked-out lanes read `padding_option` ("zero", or "nan";
undefined in 3.6, zero here). The checks 3.6 makes at compile time are made here at call time, so a kernel the
GPU would refuse is refused on the CPU too: offsets must fit int32, `block_shape` and `order` must be constants
of the pointer's rank, `mask`/`other` are not allowed with a block pointer, `nan` padding not for integers, and a
stored block must have the pointer's block shape and element type.
"""

from __future__ import annotations

from typing import Any

_INT32 = (-(2**31), 2**31)


def install_block_pointers() -> None:
    """Give the interpreter block pointers when the installed Triton has none; idempotent, and a no-op on a Triton
    that still has them."""
    import triton.language as tl
    from triton.runtime.interpreter import InterpreterBuilder

    if hasattr(InterpreterBuilder, "create_make_block_ptr") or getattr(tl.load, "_kbx_block_pointers", False):
        return
    load, store = tl.core.load, tl.core.store

    @tl.core.builtin
    def make_block_ptr(base, shape, strides, offsets, block_shape, order, _semantic=None):
        return BlockPointer.make(_semantic, base, shape, strides, offsets, block_shape, order)

    @tl.core.builtin
    def advance(base, offsets, _semantic=None):
        return base.advance(offsets, _semantic=_semantic)

    @tl.core.builtin
    def block_load(pointer, mask=None, other=None, boundary_check=(), padding_option="", cache_modifier="",
                   eviction_policy="", volatile=False, _semantic=None):
        if not isinstance(pointer, BlockPointer):
            if boundary_check or padding_option:
                raise ValueError("`padding_option` or `boundary_check` is only supported for block pointers")
            return load(pointer, mask, other, cache_modifier=cache_modifier, eviction_policy=eviction_policy,
                        volatile=volatile, _semantic=_semantic)
        if mask is not None or other is not None:
            raise ValueError("`mask` and `other` arguments cannot be specified for loading block pointers")
        ptrs, inside = pointer.addresses(_semantic, boundary_check)
        fill = None if inside is None else pointer.padding(_semantic, padding_option)
        return load(ptrs, inside, fill, cache_modifier=cache_modifier, eviction_policy=eviction_policy,
                    volatile=volatile, _semantic=_semantic)

    @tl.core.builtin
    def block_store(pointer, value, mask=None, boundary_check=(), cache_modifier="", eviction_policy="",
                    _semantic=None):
        if not isinstance(pointer, BlockPointer):
            if boundary_check:
                raise ValueError("`boundary_check` is only supported for block pointers")
            return store(pointer, value, mask, cache_modifier=cache_modifier, eviction_policy=eviction_policy,
                         _semantic=_semantic)
        if mask is not None:
            raise ValueError("`mask` and `other` arguments cannot be specified for storing to block pointers")
        value = pointer.checked_value(_semantic, value)
        ptrs, inside = pointer.addresses(_semantic, boundary_check)
        return store(ptrs, value, inside, cache_modifier=cache_modifier, eviction_policy=eviction_policy,
                     _semantic=_semantic)

    block_load._kbx_block_pointers = True  # type: ignore[attr-defined]
    for module in (tl, tl.core):
        module.make_block_ptr = make_block_ptr
        module.advance = advance
        module.load = block_load
        module.store = block_store


class BlockPointer:
    """A block of a strided tensor, as 3.6 typed it: `pointer_type<block_type<element, block_shape>>`."""

    def __init__(self, base: Any, shape: list[Any], strides: list[Any], offsets: list[Any],
                 block_shape: list[int], order: list[int]) -> None:
        self.base, self.shape, self.strides, self.offsets = base, shape, strides, offsets
        self.block_shape, self.order = block_shape, order

    @property
    def element_ty(self) -> Any:
        return self.base.type.element_ty

    @classmethod
    def make(cls, semantic: Any, base: Any, shape: Any, strides: Any, offsets: Any, block_shape: Any,
             order: Any) -> BlockPointer:
        import triton.language as tl

        if not isinstance(base, tl.tensor) or not base.type.is_ptr() or base.type.is_block():
            raise ValueError("Expected `base` to be a pointer type (but not a block pointer type or others)")
        if base.type.element_ty == tl.int1:
            base = semantic.cast(base, tl.pointer_type(tl.int8, base.type.address_space))
        blocks = [_constant(b) for b in _listed(block_shape)]
        if not all(isinstance(b, int) and _INT32[0] <= b < _INT32[1] for b in blocks):
            raise AssertionError("Expected a list of constant integers (`int32_t` range) in `block_shape`")
        ranks = [_constant(o) for o in _listed(order)]
        if sorted(ranks) != list(range(len(ranks))):
            raise AssertionError("Expected a permutation of (0, 1, ..., len(order)-1) in order")
        shape, strides, offsets = _listed(shape), _listed(strides), _listed(offsets)
        if not all(len(blocks) == len(x) for x in (shape, strides, offsets, ranks)):
            raise AssertionError("Expected shape/strides/offsets/block_shape to have the same length")
        return cls(base, [_index(semantic, s, wide=True) for s in shape],
                   [_index(semantic, s, wide=True) for s in strides],
                   [_index(semantic, o, wide=False) for o in offsets], blocks, ranks)

    def advance(self, offsets: Any, _semantic: Any = None) -> BlockPointer:
        semantic = _semantic or _interpreter_semantic()
        deltas = _listed(offsets)
        if len(deltas) != len(self.offsets):
            raise AssertionError("Expected as many offsets as the block pointer has dimensions")
        moved = [semantic.add(o, _index(semantic, d, wide=False), sanitize_overflow=False)
                 for o, d in zip(self.offsets, deltas)]
        return BlockPointer(self.base, self.shape, self.strides, moved, self.block_shape, self.order)

    def addresses(self, semantic: Any, boundary_check: Any) -> tuple[Any, Any]:
        """The block's tensor of pointers and, when a dimension is checked, the mask of lanes inside the tensor."""
        import triton.language as tl

        checked = self._checked_dims(boundary_check)
        rank = len(self.block_shape)
        ptrs, inside = self.base, None
        for d, (size, stride, offset, block) in enumerate(zip(self.shape, self.strides, self.offsets,
                                                              self.block_shape)):
            index = semantic.add(offset, semantic.arange(0, block), sanitize_overflow=False)
            for axis in range(rank):
                if axis != d:
                    index = semantic.expand_dims(index, axis)
            wide = semantic.cast(index, tl.int64)
            ptrs = semantic.add(ptrs, semantic.mul(wide, stride, sanitize_overflow=False), sanitize_overflow=False)
            if d in checked:
                lane = semantic.and_(semantic.greater_equal(wide, 0), semantic.less_than(wide, size))
                inside = lane if inside is None else semantic.and_(inside, lane)
        ptrs = semantic.broadcast_impl_shape(ptrs, self.block_shape)
        if inside is not None:
            inside = semantic.broadcast_impl_shape(inside, self.block_shape)
        return ptrs, inside

    def padding(self, semantic: Any, option: Any) -> Any:
        option = _constant(option)
        if option == "nan":
            if self.element_ty.is_int():
                raise ValueError("Padding option `nan` is not supported for integer block pointers")
            return semantic.to_tensor(float("nan"))
        if option not in ("", "zero", None):
            raise ValueError(f"Padding option {option!r} is not supported")
        return semantic.to_tensor(0)

    def checked_value(self, semantic: Any, value: Any) -> Any:
        value = semantic.to_tensor(value)
        if not value.type.is_block():
            value = semantic.broadcast_impl_shape(value, self.block_shape)
        if list(value.type.get_block_shapes()) != list(self.block_shape):
            raise AssertionError(f"Block shape({self.block_shape}) and value shape"
                                 f"({list(value.type.get_block_shapes())}) mismatch")
        if value.type.element_ty != self.element_ty:
            raise AssertionError(f"Block element type({self.element_ty}) and value element type"
                                 f"({value.type.element_ty}) mismatch")
        return value

    def _checked_dims(self, boundary_check: Any) -> set[int]:
        dims = [_constant(d) for d in _listed(_constant(boundary_check) or ())]
        if not all(isinstance(d, int) and 0 <= d < len(self.block_shape) for d in dims):
            raise AssertionError(f"boundary_check {dims} names a dimension the block pointer lacks")
        if len(set(dims)) != len(dims):
            raise AssertionError("Duplicate dimension in `boundary_check`")
        return set(dims)


def _interpreter_semantic() -> Any:
    from triton.runtime.interpreter import interpreter_semantic

    return interpreter_semantic


def _constant(value: Any) -> Any:
    import triton.language as tl

    return tl.core._unwrap_if_constexpr(value)


def _listed(values: Any) -> list[Any]:
    values = _constant(values)
    return list(values) if hasattr(values, "__iter__") and not isinstance(values, str) else [values]


def _index(semantic: Any, value: Any, wide: bool) -> Any:
    """A shape or stride as int64 (`wide`), an offset as int32: 3.6's types, and its refusal of int64 offsets."""
    import triton.language as tl

    value = _constant(value)
    if isinstance(value, bool) or not isinstance(value, (int, tl.tensor)):
        raise AssertionError(f"Unsupported element type in shape/strides/offsets: {type(value)}")
    if isinstance(value, int):
        if not wide and not _INT32[0] <= value < _INT32[1]:
            raise AssertionError(f"Block pointers only support 32 bit `offsets/block_shape`, got a value {value}")
        return semantic.scalar_constant(value, tl.int64 if wide else tl.int32)
    if value.type.is_block() or not value.dtype.is_int():
        raise AssertionError("Expected an integer scalar in shape/strides/offsets")
    if wide:
        return semantic.cast(value, tl.int64)
    if value.dtype.int_bitwidth > 32:
        raise AssertionError("Block pointers only support 32 bit `offsets/block_shape`, add a `.to(tl.int32)` or use "
                             "regular indexing for 64 bit support")
    return semantic.cast(value, tl.int32)
