"""Casts to fp8 under the CPU interpreter: rounded to nearest even and saturated, as a GPU converts.

Triton 3.9's interpreter converts a float to `tl.float8e4nv` or `tl.float8e5` on bit patterns (`_convert_float`):
it rounds a tie up instead of to even (1.0625 -> 1.125 in e4m3, where the even neighbour is 1.0), truncates where
the result is subnormal (3 * 2^-10 -> 2^-9, not 2^-8), and ORs a rounding carry into the exponent field instead of
adding it; and back from fp8 it read the NaN code of e4m3 as 480 and e5m2's inf and NaN codes as finite
numbers. A GPU compiles `x.to(tl.float8e4nv)` to `cvt.rn.satfinite` (Hopper): round to nearest, ties to even,
subnormals included, and a value past the largest finite one (inf too) saturates to it; NaN stays NaN. An honest
quantize_fp8_e4m3 kernel that casts with `.to` failed on the CPU (MISMATCH on a quarter of its elements,
2026-11-28) for the interpreter's sake. Here such a cast picks, among the format's finite values, the nearest one
to the fp32 value, the one with the even code on a tie, in numpy and float64 (every fp32 value and every midpoint
between two fp8 neighbours is exact there), and a cast from fp8 to a wider float decodes the code from the same table.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def finite_values(mantissa_bits: int, bias: int, finite_codes: int) -> np.ndarray:
    """The non-negative values of codes 0 .. finite_codes - 1, ascending (the code order of a sign-magnitude format)."""
    codes = np.arange(finite_codes)
    exponent = codes >> mantissa_bits
    mantissa = (codes & ((1 << mantissa_bits) - 1)) / (1 << mantissa_bits)
    return np.where(exponent == 0, mantissa * 2.0 ** (1 - bias), (1 + mantissa) * 2.0 ** (exponent - bias))


_TABLES = {
    # e4m3fn: no infinities, 0x7f is NaN; e5m2: 0x7c is inf, 0x7d.. NaN.
    "fp8e4nv": finite_values(3, 7, 0x7F),
    "fp8e5": finite_values(2, 15, 0x7C),
}
_NAN = {"fp8e4nv": 0x7F, "fp8e5": 0x7E}


def to_fp8_bits(values: np.ndarray, name: str) -> np.ndarray:
    """uint8 codes of `values` (any float dtype) in the fp8 format `name`, rounded to nearest even, saturated."""
    table = _TABLES[name]
    x = np.asarray(values, dtype=np.float64)
    magnitude = np.minimum(np.abs(x), table[-1])  # satfinite: inf and anything past the largest value -> it
    upper = np.clip(np.searchsorted(table, np.nan_to_num(magnitude), side="left"), 0, len(table) - 1)
    lower = np.maximum(upper - 1, 0)
    below, above = magnitude - table[lower], table[upper] - magnitude
    pick_upper = (above < below) | ((above == below) & (upper % 2 == 0))
    codes = np.where(pick_upper, upper, lower).astype(np.uint8)
    codes = np.where(np.isnan(x), np.uint8(_NAN[name]), codes)
    return (codes | (np.signbit(x).astype(np.uint8) << 7)).astype(np.uint8)


def from_fp8_bits(codes: np.ndarray, name: str) -> np.ndarray:
    """float64 values of fp8 codes (uint8) in the format `name`, infinities and NaN included."""
    table = _TABLES[name]
    codes = np.asarray(codes, dtype=np.uint8)
    magnitude = codes & 0x7F
    special = magnitude >= len(table)  # e4m3fn: 0x7f is NaN; e5m2: 0x7c is inf, past it NaN
    values = table[np.minimum(magnitude, len(table) - 1)]
    values = np.where(special, np.where((name == "fp8e5") & (magnitude == 0x7C), np.inf, np.nan), values)
    return np.where(codes & 0x80, -values, values)


def _source_values(handle: Any) -> np.ndarray:
    """A float tensor handle's values; the interpreter holds bf16 as uint16 bit patterns."""
    if handle.dtype.scalar.name == "bf16":
        return (np.asarray(handle.data).astype(np.uint32) << 16).view(np.float32)
    return np.asarray(handle.data)


def install_float8_casts() -> None:
    """Route the interpreter's float -> fp8e4nv / fp8e5 casts through `to_fp8_bits`; idempotent."""
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder
    original = builder.create_fp_to_fp
    if getattr(original, "_kbx_shimmed", False):
        return

    def create_fp_to_fp(self: Any, src: Any, dst_type: Any, rounding_mode: Any) -> Any:
        name, source = getattr(dst_type.scalar, "name", ""), getattr(src.dtype.scalar, "name", "")
        if name in _TABLES and src.dtype.scalar.primitive_bitwidth > 8:
            bits = to_fp8_bits(_source_values(src), name).reshape(np.shape(src.data))
            return interpreter.TensorHandle(bits, dst_type.scalar)
        if source in _TABLES and dst_type.scalar.name in ("fp64", "fp32", "fp16", "bf16"):
            values = from_fp8_bits(np.asarray(src.data), source)  # every fp8 value is exact in each of these
            if dst_type.scalar.name == "bf16":  # held as bit patterns
                data = (values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            else:
                data = values.astype(interpreter._get_np_dtype(dst_type.scalar))
            return interpreter.TensorHandle(data, dst_type.scalar)
        return original(self, src, dst_type, rounding_mode)

    create_fp_to_fp._kbx_shimmed = True  # type: ignore[attr-defined]
    builder.create_fp_to_fp = create_fp_to_fp
