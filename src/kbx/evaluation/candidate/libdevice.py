"""libdevice under the CPU interpreter: a kernel that calls CUDA's math library runs on the CPU as it compiles on a GPU.

Triton 3.9's interpreter raises NotImplementedError on every `tl.extra.cuda.libdevice` call (an extern elementwise
function), and the backend-neutral `triton.language.extra.libdevice` is a module of empty stubs there (the GPU's
compiler swaps in the backend's functions; the interpreter calls the stub, which returns None). Honest kernels reach
for libdevice where `tl` has no function: `rint` and `pow` in the quantization tasks, `log1p`, `expm1` and `tanh` in
activations. On the CPU all of them failed, RUNTIME_ERROR, for a reason of the interpreter, not of the kernel
(2026-11-28; issue 20, point 7). Here each libdevice symbol (`__nv_rintf`, `__nv_powf`, `__nv_fast_expf`, ...) is
computed with numpy, or torch where numpy lacks the function, in float64 and rounded once to the symbol's return
type: at least as accurate as the GPU's libdevice, which is what the contracts ask of a kernel anyway.

fp32 subnormals are flushed to signed zeros, in the arguments and in the result of a float32 symbol, as on a GPU:
Triton compiles libdevice with flush-to-zero on (its `enable_reflect_ftz` option, on by default), so
`libdevice.pow(1e-44, 0.5)` is 0 there, not 1e-22 (an H200, 2026-11-28). Emulating it keeps a kernel's CPU verdict
the GPU's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np


def _torch(name: str, module: str = "") -> Callable[..., np.ndarray]:
    """torch's `name` (in `torch.<module>`) on float64 copies. It runs below Python dispatch: this is the kernel's
    own arithmetic (libdevice on a GPU), not torch doing the candidate's work, so the worker's dispatch recorder
    (`runtime.torch_compute`) must not count it, as it did (libdevice.erf in an honest erf: REJECTED_RUNTIME)."""
    def run(*args: np.ndarray) -> np.ndarray:
        import torch

        function = getattr(getattr(torch, module) if module else torch, name)
        with torch._C._DisableTorchDispatch():
            return function(*[torch.from_numpy(np.asarray(a, dtype=np.float64)) for a in args]).numpy()
    return run


def _special(name: str) -> Callable[..., np.ndarray]:
    return _torch(name, "special")


def _erfcinv(x: np.ndarray) -> np.ndarray:
    """erfc(y) = 2 Phi(-y sqrt 2), so erfcinv(x) = -ndtri(x / 2) / sqrt 2."""
    return -_special("ndtri")(np.asarray(x) / 2.0) / math.sqrt(2.0)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


FUNCTIONS: dict[str, Callable[..., np.ndarray]] = {
    "abs": np.abs, "fabs": np.abs, "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x),
    "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "cbrt": np.cbrt, "rcbrt": lambda x: 1.0 / np.cbrt(x),
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "atan2": np.arctan2, "sinpi": lambda x: np.sin(np.pi * x),
    "cospi": lambda x: np.cos(np.pi * x), "erf": _torch("erf"), "erfc": _torch("erfc"), "erfinv": _torch("erfinv"),
    "lgamma": _torch("lgamma"), "tgamma": np.vectorize(math.gamma, otypes=[np.float64]),
    "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint, "nearbyint": np.rint,
    "round": _round_half_away, "pow": np.power, "powi": np.power, "fmod": np.fmod,
    "remainder": lambda x, y: x - y * np.rint(x / y), "hypot": np.hypot, "fmax": np.fmax, "fmin": np.fmin,
    "max": np.maximum, "min": np.minimum, "copysign": np.copysign, "fdim": lambda x, y: np.maximum(x - y, 0.0),
    "fma": lambda a, b, c: a * b + c, "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "divide": np.divide, "rcp": lambda x: 1.0 / x, "saturate": lambda x: np.clip(x, 0.0, 1.0),
    "ldexp": lambda x, n: np.ldexp(x, np.asarray(n, dtype=np.int64)), "scalbn": lambda x, n: np.ldexp(x, n),
    "isinf": np.isinf, "isnan": np.isnan, "signbit": np.signbit, "finite": np.isfinite, "isfinite": np.isfinite,
    "normcdf": _special("ndtr"), "normcdfinv": _special("ndtri"), "erfcx": _special("erfcx"), "erfcinv": _erfcinv,
    "rhypot": lambda x, y: 1.0 / np.hypot(x, y), "norm3d": lambda a, b, c: np.hypot(np.hypot(a, b), c),
    "rnorm3d": lambda a, b, c: 1.0 / np.hypot(np.hypot(a, b), c),
    "norm4d": lambda a, b, c, d: np.hypot(np.hypot(a, b), np.hypot(c, d)),
    "rnorm4d": lambda a, b, c, d: 1.0 / np.hypot(np.hypot(a, b), np.hypot(c, d)),
    "cyl_bessel_i0": np.i0, "cyl_bessel_i1": _special("i1"), "j0": _special("bessel_j0"),
    "j1": _special("bessel_j1"), "y0": _special("bessel_y0"), "y1": _special("bessel_y1"),
    "llrint": np.rint, "llround": _round_half_away,
}
"""libdevice's functions by base name (`base_name`), on float64 arrays."""

_ROUNDING = ("_rn", "_rz", "_ru", "_rd")


_INTEGERS = {"int": np.int32, "uint": np.uint32, "ll": np.int64, "ull": np.uint64}
_FLOATS = {"float": np.float32, "double": np.float64}
_TO_INTEGRAL = {"rn": np.rint, "rz": np.trunc, "ru": np.ceil, "rd": np.floor}
_CONVERSION = re.compile(r"__nv_(float|double|int|uint|ll|ull)2(float|double|int|uint|ll|ull)_(rn|rz|ru|rd)")


def _to_integer(target: type, mode: str) -> Callable[[np.ndarray], np.ndarray]:
    """`float2int_rd` and kin: round by the mode, saturate to the target's range, NaN to 0 (as `cvt` does)."""
    info = np.iinfo(target)

    def convert(x: np.ndarray) -> np.ndarray:
        rounded = _TO_INTEGRAL[mode](np.asarray(x, dtype=np.float64))
        clipped = np.where(np.isnan(rounded), 0.0, np.clip(rounded, float(info.min), float(info.max)))
        top = clipped >= float(info.max)  # float(2^63 - 1) is 2^63, past int64: set the maximum exactly
        result = np.where(top, 0.0, clipped).astype(target)
        result[top] = info.max
        return result
    return convert


def _to_float(target: type, mode: str) -> Callable[[np.ndarray], np.ndarray]:
    """`int2float_rz`, `ll2double_rn`, `double2float_rd` and kin: the nearest value, then one step towards zero,
    down or up where it overshot the exact argument in the mode's direction (compared exactly, in the source type)."""
    def convert(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        with np.errstate(over="ignore"):  # past float32's range is inf, as on a GPU
            nearest = x.astype(target)
        if mode == "rn":
            return nearest
        if x.dtype.kind == "f":
            back, beyond = nearest.astype(x.dtype), np.zeros(x.shape, dtype=bool)
        else:  # the nearest float may lie past the integer type's range (2^31 for int32): then it is above x
            beyond = nearest.astype(np.float64) >= float(np.iinfo(x.dtype).max)
            back = np.where(beyond, 0, nearest).astype(x.dtype)
        above = beyond | (back > x)
        below = ~beyond & (back < x)
        down = above & (x >= 0) if mode == "rz" else above if mode == "rd" else np.zeros(x.shape, dtype=bool)
        up = below & (x < 0) if mode == "rz" else below if mode == "ru" else np.zeros(x.shape, dtype=bool)
        stepped = np.where(down, np.nextafter(nearest, target(-np.inf)), nearest)
        return np.where(up, np.nextafter(nearest, target(np.inf)), stepped).astype(target)
    return convert


def _bitcast(source: type, target: type) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: np.ascontiguousarray(np.asarray(x).astype(source)).view(target)


EXACT: dict[str, Callable[..., np.ndarray]] = {
    "__nv_float_as_int": _bitcast(np.float32, np.int32), "__nv_float_as_uint": _bitcast(np.float32, np.uint32),
    "__nv_int_as_float": _bitcast(np.int32, np.float32), "__nv_uint_as_float": _bitcast(np.uint32, np.float32),
    "__nv_double_as_longlong": _bitcast(np.float64, np.int64),
    "__nv_longlong_as_double": _bitcast(np.int64, np.float64),
    "__nv_nextafterf": lambda x, y: np.nextafter(x.astype(np.float32), y.astype(np.float32)),
    "__nv_nextafter": np.nextafter,
}
"""Symbols computed on their arguments' own bits, not widened to float64 nor flushed: conversions with a rounding
mode (below), bitcasts and nextafter. A kernel flooring with `libdevice.float2int_rd`, as CUDA code does, failed
under the interpreter, RUNTIME_ERROR, before (2026-11-28)."""


def exact_function(symbol: str) -> Callable[..., np.ndarray] | None:
    """The exact (bit-level) implementation of `symbol`, or None where it is an ordinary math function."""
    if symbol in EXACT:
        return EXACT[symbol]
    match = _CONVERSION.fullmatch(symbol)
    if match is None:
        return None
    source, target, mode = match.groups()
    if target in _INTEGERS:
        return _to_integer(_INTEGERS[target], mode) if source in _FLOATS else None
    return _to_float(_FLOATS[target], mode)


_FLOAT32_TINY = float(np.finfo(np.float32).tiny)
"""The smallest normal float32, 2^-126: below it (zero aside) a float32 is subnormal."""


def flushed(values: np.ndarray) -> np.ndarray:
    """`values` with every subnormal float32 magnitude replaced by a zero of its sign (what FTZ does)."""
    if values.dtype.kind != "f":
        return values
    return np.where(np.abs(values) < _FLOAT32_TINY, np.copysign(np.zeros_like(values), values), values)


def base_name(symbol: str, float32: bool) -> str:
    """`__nv_fast_expf` -> `exp`, `__nv_fdiv_rn` -> `div`, `__nv_dsqrt_rn` -> `sqrt`: the prefix, the fast and
    rounding-mode variants, the float32 suffix `f` and the float/double prefix of the basic operations dropped."""
    name = symbol.removeprefix("__nv_").removeprefix("fast_")
    for suffix in _ROUNDING:
        name = name.removesuffix(suffix)
    plain = name[:-1] if float32 and name.endswith("f") else name
    for candidate in (name, plain):
        if candidate in FUNCTIONS:
            return candidate
        if candidate[:1] in ("f", "d") and candidate[1:] in FUNCTIONS:  # fadd, fdividef, frcp, dsqrt ...
            return candidate[1:]
    if not float32 and name.endswith("d") and name[:-1] in FUNCTIONS:  # isnand, isinfd, isfinited, signbitd
        return name[:-1]
    return name


def install_libdevice() -> None:
    """Let interpreted kernels call libdevice (idempotent); CPU interpreter only. Install after the GPU-frontend
    check, which lowers kernels with these modules as they were (`gpu_frontend._LANGUAGE`)."""
    import inspect

    import triton.language as tl
    import triton.language.extra.cuda.libdevice as cuda
    import triton.language.extra.libdevice as neutral
    from triton.runtime.interpreter import InterpreterBuilder, TensorHandle, _get_np_dtype, interpreter_semantic

    if getattr(InterpreterBuilder, "_kbx_libdevice", False):
        return

    def create_extern_elementwise(self: Any, lib_name: str, lib_path: str, symbol: str, args: list[Any],
                                  ret: Any, is_pure: bool) -> Any:
        scalar = getattr(ret, "element_ty", None) or getattr(ret, "scalar", ret)
        # a float32 symbol by its arguments too: isnan, isinf, signbit, llrint return integers (`__nv_isnanf`)
        float32 = str(scalar) == "fp32" or any(str(getattr(a, "dtype", "")) == "fp32" for a in args)
        exact = exact_function(symbol)
        if exact is not None:
            with np.errstate(all="ignore"):
                return TensorHandle(np.asarray(exact(*[a.data for a in args])).astype(_get_np_dtype(scalar)), scalar)
        name = base_name(symbol, float32=float32)
        function = FUNCTIONS.get(name)
        if function is None:
            raise NotImplementedError(f"libdevice's {symbol} is not available under the CPU interpreter")
        ftz = flushed if float32 else (lambda values: values)
        wide = [ftz(a.data).astype(np.float64) if a.data.dtype.kind == "f" else a.data for a in args]
        with np.errstate(all="ignore"):  # inf and NaN are values here, as on a GPU
            result = np.asarray(function(*wide)).astype(_get_np_dtype(scalar))
        return TensorHandle(ftz(result), scalar)

    def interpreted(member: Any) -> Callable[..., Any]:
        """`member` called as the interpreter calls `tl`'s builtins (it patches those alone, not libdevice's)."""
        def call(*args: Any, **kwargs: Any) -> Any:
            kwargs.pop("_semantic", None)
            return member(*args, **kwargs, _semantic=interpreter_semantic)
        return call

    InterpreterBuilder.create_extern_elementwise = create_extern_elementwise
    for name, member in inspect.getmembers(cuda):
        if tl.core.is_builtin(member):
            setattr(cuda, name, interpreted(member))
            if hasattr(neutral, name):  # the neutral stubs become CUDA's functions, as a GPU's compiler makes them
                setattr(neutral, name, getattr(cuda, name))
    InterpreterBuilder._kbx_libdevice = True
