"""Helpers for task authors' `make_inputs`: deterministic, varied, sometimes non-contiguous tensors.

Every helper draws from the given generator on the generator's device, so the trusted worker and the
candidate worker regenerate bit-identical inputs from the same (workload, dtype, seed).
Values are not only `randn`: offsets, scales and outliers make a kernel that returns zeros, the input or a
constant fail by construction.
"""

from __future__ import annotations

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


def with_outliers(
    x: torch.Tensor, generator: torch.Generator, *, fraction: float = 1e-3, magnitude: float = 50.0
) -> torch.Tensor:
    """A copy of x where a random `fraction` of elements are replaced by +-`magnitude`."""
    pick = torch.rand(x.shape, generator=generator, device=generator.device) < fraction
    sign = torch.where(torch.rand(x.shape, generator=generator, device=generator.device) < 0.5, -1.0, 1.0)
    return torch.where(pick, (sign * magnitude).to(x.dtype), x)


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


def layout(x: torch.Tensor, name: str) -> torch.Tensor:
    """Apply a named layout from workload params: `contiguous`, `transposed` or `strided`."""
    if name == "contiguous":
        return x
    if name == "transposed":
        return transposed(x)
    if name == "strided":
        return strided(x)
    raise ValueError(f"unknown layout {name!r}")
