"""Make ordinary Triton code run under the CPU interpreter (`TRITON_INTERPRET=1`) as it would on a GPU.

Installed in the candidate worker before candidate code is imported, on the CPU only:
- `@triton.autotune` with several configs benchmarks them through the active GPU driver, which a CPU machine
  lacks. Timings mean nothing here anyway, so the first config that survives pruning is kept; correctness
  cannot depend on the config a kernel is launched with.
- The interpreter stores bfloat16 as raw uint16 bit patterns and computes `tl.dot` and arithmetic on bf16 operands
  on those bit patterns, truncates fp32 -> bf16 casts (triton-lang/triton#11584), and casts integers, booleans and
  float64 to bf16 by taking their values for bit patterns (an int4 weight dequantized straight to bf16 came out NaN
  or subnormal: an honest matmul_w4a16 kernel failed, 2026-11-28). A GPU multiplies bf16 exactly, accumulates in
  fp32 and rounds casts to nearest-even (integers and float64 through fp32, as torch does); the shim does the same,
  so an honest bf16 kernel is not failed on the CPU for the interpreter's sake.
- A mask built from a scalar condition (`pid < n`, alone or `&`-ed with a block mask) reaches the interpreter's loads
  and stores as int32 data, which it refuses ("mask has unsupported dtype"); a GPU broadcasts it. Triton's own
  semantics only let boolean (int1) masks through, so the shim reads any mask's data as booleans.
- A comparison's result carries its operands' element type in the interpreter (bool data typed fp32 or int32), so
  where it is a scalar (`total != 0.0` on a reduction's result) and meets a block (`(r > j) & (total != 0.0)`), the
  broadcast converts its booleans to floats and `&` raises (numpy's bitwise_and on floats); on a GPU a comparison is
  int1 and broadcasts. The shim types comparison results int1 (an honest lu_factor was RUNTIME_ERROR).
- A float -> integer conversion (`x.to(tl.int32)`) outside the integer's range is undefined in numpy's `astype`,
  which the interpreter uses (1e30 -> int32 gives -2^31 on x86); a GPU's `cvt.rzi` saturates, so a kernel that
  converts before it clamps is right there. The shim converts as an H200 does (`gpu_float_to_int`).
- Casts to fp8 (`x.to(tl.float8e4nv)`) round ties up, truncate subnormals and carry into the wrong field; a GPU
  rounds to nearest even and saturates (`kbx.evaluation.candidate.float8`).
- Block pointers (`tl.make_block_ptr`, `tl.advance`, `boundary_check`), which the GPU's Triton 3.6 compiles and
  Triton 3.7 on removed: `kbx.evaluation.candidate.block_pointers` lowers them to pointers and masks.
- A `@triton.jit` function called from a kernel patches `triton.language` again on every call, in every program
  of the grid (`inspect.getmembers` over its modules: a fifth of the CPU time of the suite's candidates in `kbx run`
  on 2026-11-27), though the launch patched it already; the shim skips the patching where every language module
  the function sees is patched.
- Costs that change no result (`kbx.evaluation.candidate.overheads`): every int32 `+`, `-`, `*` also computed an int64
  overflow check that a `device_assert` then dropped (debug is off; a GPU's compiler drops it too): 35-40 % of the
  CPU time of an honest conv3d, one_hot and the conv3d solution; each dtype lookup built a new table; and every
  value an operation made built its block type and shape afresh (a `tl.tuple` of constexprs, its type and a name
  string: a fifth of the interpreter's time in the suite's candidates, 2026-11-29), where one per (element type,
  shape) serves them all; and every binary operation's broadcast compared same-shaped operands through rebuilt
  `tl.tuple`s to return them unchanged.
- `tl.reduce` and `tl.associative_scan` with a kernel's own combine function run it once per element in Python (an
  honest Welford kernel: 195 s); `kbx.evaluation.candidate.combine_tree` combines whole blocks in a tree, as a GPU
  combines in a tree too.
- A kernel's float argument and the variable of a `range` / `tl.range` loop are Python numbers under the
  interpreter, but rank-0 tensors on a GPU (fp32 for the argument, an integer for the loop variable), so
  `lo.to(x.dtype)` or `block.to(tl.int64)` (how grid-stride kernels widen offsets) failed on the CPU only, and
  `x * alpha` on fp16 `x` stayed fp16 where a GPU promotes it to fp32. The shim makes float arguments fp32 tensors
  and assigns each such loop variable through `to_tensor` (int32, int64 past 2^31) at the top of the loop's body;
  `tl.static_range`'s stays a Python int, a constexpr on a GPU too.
- Device queries (`torch.cuda.get_device_properties(...).multi_processor_count`, Triton's
  `driver.active.get_active_torch_device()`) raise on a machine without a GPU; they answer for an H200
  (`kbx.evaluation.candidate.device_queries`), so a grid sized per SM is launched as on a GPU; there too,
  `with torch.cuda.device(x.device.index):` around a launch (Mamba's wrappers) is a no-op for the CPU.
- And one check rather than a shim: every launched kernel must also lower to Triton IR for a GPU
  (`kbx.evaluation.candidate.gpu_frontend`), so a Python body that only the interpreter runs is not a kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kbx.evaluation.candidate.block_pointers import install_block_pointers
from kbx.evaluation.candidate.combine_tree import install_combine_tree
from kbx.evaluation.candidate.device_queries import install_device_queries
from kbx.evaluation.candidate.float8 import install_float8_casts
from kbx.evaluation.candidate.gpu_frontend import install_gpu_frontend_check
from kbx.evaluation.candidate.libdevice import install_libdevice
from kbx.evaluation.candidate.overheads import install_overhead_shims


def install_interpreter_shims() -> None:
    """Patch Triton's autotuner and interpreter; idempotent."""
    _shim_autotune()
    install_overhead_shims()
    _shim_bfloat16()
    _shim_masks()
    _shim_comparisons()
    _shim_float_to_int()
    install_float8_casts()
    _shim_device_calls()
    _shim_scalars()
    install_block_pointers()
    install_combine_tree()
    install_gpu_frontend_check()
    install_libdevice()  # after the check, which keeps the libdevice modules as they were for the frontend
    install_device_queries()


def bf16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    """Exact widening: bf16 is the top half of an fp32."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16_bits(values: np.ndarray) -> np.ndarray:
    """Round fp32 to the nearest bf16 (ties to even); NaN stays a quiet NaN."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    bits = values.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(values), np.uint16(0x7FC0), rounded)


def _shim_autotune() -> None:
    from triton.runtime.autotuner import Autotuner

    if getattr(Autotuner, "_kbx_shimmed", False):
        return
    original = Autotuner.prune_configs

    def first_config(self: Any, kwargs: Any) -> Any:
        return original(self, kwargs)[:1]

    Autotuner.prune_configs = first_config
    Autotuner._kbx_shimmed = True


def _shim_bfloat16() -> None:
    import triton.language as tl
    from triton.runtime.interpreter import InterpreterBuilder, TensorHandle

    if getattr(InterpreterBuilder, "_kbx_shimmed", False):
        return
    original_dot = InterpreterBuilder.create_dot
    original_binary = InterpreterBuilder.binary_op
    original_cast = InterpreterBuilder.cast_impl

    def widen(handle: Any) -> Any:
        if handle.dtype.scalar == tl.bfloat16:
            return TensorHandle(bf16_bits_to_f32(handle.data), tl.float32)
        return handle

    def create_dot(self: Any, a: Any, b: Any, d: Any, input_precision: Any, max_num_imprecise_acc: Any) -> Any:
        return original_dot(self, widen(a), widen(b), d, input_precision, max_num_imprecise_acc)

    def binary_op(self: Any, lhs: Any, rhs: Any, op: Any) -> Any:
        if lhs.dtype.scalar == tl.bfloat16 and rhs.dtype.scalar == tl.bfloat16:
            result = original_binary(self, widen(lhs), widen(rhs), op)
            if result.data.dtype == np.float32:
                return TensorHandle(f32_to_bf16_bits(result.data), tl.bfloat16)
            return result  # comparisons yield booleans
        return original_binary(self, lhs, rhs, op)

    def cast_impl(self: Any, src: Any, dst_type: Any) -> Any:
        if dst_type.scalar == tl.bfloat16:  # upstream takes any other source's values for bit patterns
            source = src.dtype.scalar
            if source == tl.float32:
                return TensorHandle(f32_to_bf16_bits(src.data), tl.bfloat16)
            if source == tl.float64 or source.is_int() or source.is_bool():  # through fp32, as torch converts
                return TensorHandle(f32_to_bf16_bits(src.data.astype(np.float32)), tl.bfloat16)
        return original_cast(self, src, dst_type)

    InterpreterBuilder.create_dot = create_dot
    InterpreterBuilder.binary_op = binary_op
    InterpreterBuilder.cast_impl = cast_impl
    InterpreterBuilder._kbx_shimmed = True


def gpu_float_to_int(values: np.ndarray, from_float64: bool, dtype: np.dtype) -> np.ndarray:
    """Convert floats (any numpy float dtype, bf16 already widened) to the integer `dtype` as Triton's code does on
    an NVIDIA GPU (`scripts/probe_float_to_int.py` on an H200, Triton 3.6, 2026-11-28): toward zero, saturating at
    the type's range, except that 8-bit results saturate at the 16-bit range and keep its low byte (200 -> int8
    is -56, 70000 -> int8 is -1), as the 8-bit `cvt` goes through a 16-bit register. NaN gives 0, but the most
    negative value for 64-bit results and for float64 sources (the low byte of it for 8-bit ones)."""
    dtype = np.dtype(dtype)
    info = np.iinfo(dtype)
    wide = np.dtype(f"{'i' if info.min < 0 else 'u'}2") if dtype.itemsize == 1 else dtype
    lo, hi = np.iinfo(wide).min, np.iinfo(wide).max
    x = np.trunc(np.asarray(values, dtype=np.float64))
    nan = np.isnan(x)
    inside = ~nan & (x >= float(lo)) & (x < float(hi) + 1.0)  # float(hi) + 1 is a power of two, exact
    result = np.where(inside, x, 0.0).astype(wide)
    result = np.where(~nan & (x >= float(hi) + 1.0), wide.type(hi), result)
    result = np.where(~nan & (x < float(lo)), wide.type(lo), result)
    nan_value = lo if (from_float64 or dtype.itemsize == 8) else 0
    result = np.where(nan, wide.type(nan_value), result)
    return result.astype(dtype)  # for 8-bit results, numpy's integer narrowing keeps the low byte


def _shim_float_to_int() -> None:
    import triton.language as tl
    from triton.runtime.interpreter import InterpreterBuilder, TensorHandle, _get_np_dtype

    if getattr(InterpreterBuilder.create_fp_to_si, "_kbx_shimmed", False):
        return

    def convert(self: Any, src: Any, dst_type: Any) -> Any:
        scalar = src.dtype.scalar
        data = bf16_bits_to_f32(src.data) if scalar == tl.bfloat16 else src.data
        return TensorHandle(gpu_float_to_int(data, scalar == tl.float64, _get_np_dtype(dst_type)), dst_type.scalar)

    convert._kbx_shimmed = True  # type: ignore[attr-defined]
    InterpreterBuilder.create_fp_to_si = convert
    InterpreterBuilder.create_fp_to_ui = convert


def _shim_masks() -> None:
    from triton.runtime.interpreter import InterpreterBuilder, TensorHandle

    if getattr(InterpreterBuilder.create_masked_load, "_kbx_shimmed", False):
        return
    load, store, rmw = (InterpreterBuilder.create_masked_load, InterpreterBuilder.create_masked_store,
                        InterpreterBuilder.create_atomic_rmw)

    def boolean(mask: Any) -> Any:
        if mask is None:
            return mask
        data = np.asarray(mask.data)
        return mask if data.dtype == np.bool_ else TensorHandle(data != 0, mask.dtype.scalar)

    # keyword arguments pass through: the interpreter's tensor descriptors load with `cache_policy=...` (dropping
    # them made every descriptor load a TypeError, 2026-11-28)
    def create_masked_load(self: Any, ptrs: Any, mask: Any, other: Any, *args: Any, **kwargs: Any) -> Any:
        return load(self, ptrs, boolean(mask), other, *args, **kwargs)

    def create_masked_store(self: Any, ptrs: Any, value: Any, mask: Any, *args: Any, **kwargs: Any) -> Any:
        return store(self, ptrs, value, boolean(mask), *args, **kwargs)

    def create_atomic_rmw(self: Any, op: Any, ptr: Any, val: Any, mask: Any, *args: Any, **kwargs: Any) -> Any:
        return rmw(self, op, ptr, val, boolean(mask), *args, **kwargs)

    for shim in (create_masked_load, create_masked_store, create_atomic_rmw):
        shim._kbx_shimmed = True  # type: ignore[attr-defined]
    InterpreterBuilder.create_masked_load = create_masked_load
    InterpreterBuilder.create_masked_store = create_masked_store
    InterpreterBuilder.create_atomic_rmw = create_atomic_rmw


_COMPARISONS = (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)


def _shim_comparisons() -> None:
    import triton.language as tl
    from triton.runtime.interpreter import InterpreterBuilder, TensorHandle

    original = InterpreterBuilder.binary_op
    if getattr(original, "_kbx_comparisons", False):
        return

    def binary_op(self: Any, lhs: Any, rhs: Any, op: Any) -> Any:
        result = original(self, lhs, rhs, op)
        if op in _COMPARISONS and result.data.dtype == np.bool_:
            return TensorHandle(result.data, tl.int1)
        return result

    binary_op._kbx_comparisons = True  # type: ignore[attr-defined]
    InterpreterBuilder.binary_op = binary_op


def _shim_device_calls() -> None:
    import inspect

    import triton.language as tl
    from triton.runtime import interpreter

    original = getattr(interpreter, "_patch_lang", None)
    if original is None or getattr(original, "_kbx_shimmed", False) or not hasattr(interpreter, "_LangPatchScope"):
        return

    def patched(lang: Any) -> bool:  # a patched builtin is a plain function that no longer carries the marker
        return not tl.core.is_builtin(lang.load)

    seen: dict[int, tuple[Any, int, list[Any]]] = {}
    """Per function: itself (kept alive, so its id stays its own), its globals' size and the language modules
    among them (a scan of every global on every call of a device function was 3 % of the CPU time)."""

    def lang_modules(fn: Any) -> list[Any]:
        known = seen.get(id(fn))
        if known is None or known[1] != len(fn.__globals__):
            langs = [v for v in fn.__globals__.values() if inspect.ismodule(v) and v in (tl, tl.core)]
            known = seen[id(fn)] = (fn, len(fn.__globals__), langs)
        return known[2]

    def patch_lang(fn: Any) -> Any:
        langs = lang_modules(fn)
        if langs and all(patched(lang) for lang in langs):
            return interpreter._LangPatchScope()  # nothing to change, so nothing to restore
        return original(fn)

    patch_lang._kbx_shimmed = True  # type: ignore[attr-defined]
    interpreter._patch_lang = patch_lang


def _shim_scalars() -> None:
    import ast

    import triton.language as tl
    from triton.runtime import interpreter

    if getattr(interpreter._implicit_cvt, "_kbx_shimmed", False):
        return
    original = interpreter._implicit_cvt

    def implicit_cvt(arg: Any) -> Any:
        if isinstance(arg, float):  # a GPU takes a Python float argument as fp32
            return tl.tensor(interpreter.TensorHandle(np.array([arg], dtype=np.float32), tl.float32), tl.float32)
        return original(arg)

    def visit_For(self: Any, node: ast.For) -> ast.For:  # noqa: N802 - ast.NodeTransformer's naming
        node = self.generic_visit(node)
        call = node.iter
        name = getattr(call, "func", None)
        runtime_range = isinstance(call, ast.Call) and (
            (isinstance(name, ast.Name) and name.id == "range") or (isinstance(name, ast.Attribute)
                                                                     and name.attr == "range"))
        if runtime_range and isinstance(node.target, ast.Name):
            convert = ast.Attribute(value=ast.Name(id="interpreter_semantic", ctx=ast.Load()), attr="to_tensor",
                                    ctx=ast.Load())
            node.body.insert(0, ast.Assign(
                targets=[ast.Name(id=node.target.id, ctx=ast.Store())],
                value=ast.Call(func=convert, args=[ast.Name(id=node.target.id, ctx=ast.Load()),
                                                   ast.Constant(value=False)], keywords=[])))
        return node

    implicit_cvt._kbx_shimmed = True  # type: ignore[attr-defined]
    interpreter._implicit_cvt = implicit_cvt
    interpreter.ASTTransformer.visit_For = visit_For
