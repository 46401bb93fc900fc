"""Helpers for task authors' `make_inputs`: deterministic, varied, sometimes non-contiguous tensors.

Every helper draws from the given generator on the generator's device, so the trusted worker and the
candidate worker regenerate bit-identical inputs from the same (workload, dtype, seed).
Values are not only `randn`: offsets, scales and outliers make a kernel that returns zeros, the input or a
constant fail by construction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

_DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float64": torch.float64,
    "int8": torch.int8,
    "int32": torch.int32,
    "int64": torch.int64,
    "bool": torch.bool,
}


def torch_dtype(name: str) -> torch.dtype:
    """The torch dtype for a contract dtype name such as `bfloat16`."""
    return _DTYPES[name]


def dtype_name(dtype: torch.dtype) -> str:
    """The contract name of a torch dtype."""
    for name, value in _DTYPES.items():
        if value == dtype:
            return name
    raise KeyError(f"unsupported dtype {dtype}")


def randn(
    shape: Sequence[int],
    dtype: torch.dtype | str,
    generator: torch.Generator,
    *,
    scale: float = 1.0,
    offset: float = 0.0,
) -> torch.Tensor:
    """Normal values `offset + scale * N(0, 1)`, drawn in fp32 and then cast."""
    dtype = torch_dtype(dtype) if isinstance(dtype, str) else dtype
    x = torch.randn(tuple(shape), generator=generator, device=generator.device, dtype=torch.float32)
    return (x * scale + offset).to(dtype)


def uniform(
    shape: Sequence[int], low: float, high: float, dtype: torch.dtype | str, generator: torch.Generator
) -> torch.Tensor:
    """Uniform values in [low, high), drawn in fp32 and then cast."""
    dtype = torch_dtype(dtype) if isinstance(dtype, str) else dtype
    x = torch.rand(tuple(shape), generator=generator, device=generator.device, dtype=torch.float32)
    return (low + (high - low) * x).to(dtype)


def signs(shape: Sequence[int], generator: torch.Generator) -> torch.Tensor:
    """+1.0 or -1.0 (fp32) with equal odds, never 0. `uniform(-1, 1).sign()` draws the same stream but is 0 wherever
    the draw is exactly 0 (one in 2^24 per element: a quarter of the seeds of a bench with 4 M diagonal entries),
    which made a triangular bench system singular (solve_triangular on an H200, 2026-11-28)."""
    return torch.where(uniform(shape, -1.0, 1.0, "float32", generator) < 0, -1.0, 1.0)


def with_outliers(
    x: torch.Tensor, generator: torch.Generator, *, fraction: float = 1e-3, magnitude: float = 50.0
) -> torch.Tensor:
    """A copy of x where a random `fraction` of elements are replaced by +-`magnitude`."""
    pick = torch.rand(x.shape, generator=generator, device=generator.device) < fraction
    sign = torch.where(torch.rand(x.shape, generator=generator, device=generator.device) < 0.5, -1.0, 1.0)
    return torch.where(pick, (sign * magnitude).to(x.dtype), x)


def late_extremum(
    x: torch.Tensor,
    dims: Sequence[int],
    generator: torch.Generator,
    *,
    lowest: bool = False,
    magnitude: bool = False,
    step: float = 1.0,
) -> torch.Tensor:
    """A copy of x (float32) whose every slice over `dims` (every dim when empty) holds one unique extremum past the
    largest power of two below the slice's length, in the order of the reduced dims: the slice's maximum + `step`
    (its minimum - `step` when `lowest`; its largest magnitude + `step`, sign kept, when `magnitude`).

    A kernel that reads only a power-of-two prefix of a slice (one tile capped at some block size, the first blocks
    only, a grid that stops early) misses the element that decides the result, and so does one that merges its
    blocks' partial results wrongly; with small tied integers or random data the extremum almost always lies in
    the first block instead. Keep `step` exact in the task's dtypes (the extremum stays unique after rounding)."""
    nd = x.dim()
    reduced = sorted({d % nd for d in dims}) if dims else list(range(nd))
    order = [d for d in range(nd) if d not in reduced] + reduced
    moved = x.float().permute(order).contiguous().clone()  # never the caller's tensor
    length = math.prod(x.shape[d] for d in reduced)
    slices = moved.reshape(-1, length)
    start = 2 ** ((length - 1).bit_length() - 1) if length > 1 else 0
    draw = uniform([slices.shape[0]], 0.0, float(length - start), "float32", generator)
    position = (start + torch.floor(draw).to(torch.int64)).clamp(max=length - 1)
    if magnitude:
        peak = slices.abs().amax(dim=1) + step
        value = torch.where(slices.gather(1, position[:, None])[:, 0] < 0, -peak, peak)
    else:
        value = slices.amin(dim=1) - step if lowest else slices.amax(dim=1) + step
    slices.scatter_(1, position[:, None], value[:, None])
    inverse = [order.index(d) for d in range(nd)]
    return slices.reshape(moved.shape).permute(inverse).contiguous()


def close_values(shape: Sequence[int], slice_shape: Sequence[int], generator: torch.Generator) -> torch.Tensor:
    """Float32 values in [1000, 1004), or [-1004, -1000) for about half of the slices (`slice_shape`: the shape
    broadcast over each slice, 1 along the reduced dims): distinct in float32, at most 9 values in fp16 (ulp 0.5
    there), 2 in bf16 (ulp 4). A comparison made on values rounded to a narrower dtype than the task's ties them,
    and picks another index than the exact one (small integers, exact in every dtype, hide that)."""
    sign = torch.where(uniform(slice_shape, 0.0, 1.0, "float32", generator) < 0.5, -1.0, 1.0)
    return sign * (1000.0 + uniform(shape, 0.0, 4.0, "float32", generator))


def randint(low: int, high: int, shape: Sequence[int], generator: torch.Generator) -> torch.Tensor:
    """int64 values in [low, high)."""
    return torch.randint(low, high, tuple(shape), generator=generator, device=generator.device)


def transposed(x: torch.Tensor) -> torch.Tensor:
    """The same values as x, laid out column-major in the last two dims (non-contiguous)."""
    return x.transpose(-1, -2).contiguous().transpose(-1, -2)


def strided(x: torch.Tensor, step: int = 2) -> torch.Tensor:
    """The same values as x, as a view with a stride of `step` in the last dim (non-contiguous)."""
    shape = (*x.shape[:-1], x.shape[-1] * step)
    padded = torch.zeros(shape, dtype=x.dtype, device=x.device)
    padded[..., ::step] = x
    return padded[..., ::step]


def seq_slice(x: torch.Tensor, extra: int = 7) -> torch.Tensor:
    """The same values as x (at least 3-D), as the first x.shape[-2] positions of zero-padded sequences `extra`
    longer along dim -2: the leading dims do not merge (the dim -3 stride is not x.shape[-2] times the row stride),
    so `view(-1, x.shape[-1])` fails and `reshape` copies. A kernel that flattens rows by stepping stride(-2), right
    for every contiguous input, reads the wrong rows after the first sequence."""
    if x.dim() < 3:
        raise ValueError(f"seq_slice needs a tensor of at least 3 dims, got shape {tuple(x.shape)}")
    full = torch.zeros([*x.shape[:-2], x.shape[-2] + extra, x.shape[-1]], dtype=x.dtype, device=x.device)
    full[..., : x.shape[-2], :] = x
    return full[..., : x.shape[-2], :]


def channel_slice(x: torch.Tensor) -> torch.Tensor:
    """The same values as x (N, C, ...), as the first C channels of a zero-padded tensor with 2C channels, as after
    `x.chunk(2, dim=1)`: every (n, c) plane is contiguous and the last stride is 1, but the samples are 2 * C * S
    apart, not C * S. A kernel that copies only when stride(-1) != 1 (or computes offsets as if the input were
    dense) passes every contiguous, transposed, strided and channels-last input and reads the zeros of the other
    half from the second sample on."""
    if x.dim() < 2:
        raise ValueError(f"channel_slice needs a tensor of at least 2 dims, got shape {tuple(x.shape)}")
    full = torch.zeros([x.shape[0], 2 * x.shape[1], *x.shape[2:]], dtype=x.dtype, device=x.device)
    full[:, : x.shape[1]] = x
    return full[:, : x.shape[1]]


def layout(x: torch.Tensor, name: str) -> torch.Tensor:
    """Apply a named layout from workload params: `contiguous`, `transposed`, `strided`, `seq_slice` (>= 3-D) or
    `channel_slice` (>= 2-D, channels in dim 1)."""
    if name == "contiguous":
        return x
    if name == "transposed":
        return transposed(x)
    if name == "strided":
        return strided(x)
    if name == "seq_slice":
        return seq_slice(x)
    if name == "channel_slice":
        return channel_slice(x)
    raise ValueError(f"unknown layout {name!r}")
