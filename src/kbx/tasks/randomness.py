"""Statistics for tasks with a statistical contract (the Random category): tail bounds and a test of serial
dependence, with a chance of a false alarm small enough to run on every case (`delta`).

A randomised kernel's output is judged by properties any correct sampler has with overwhelming probability: the
right marginal statistics (within a Bernstein bound) and no dependence between neighbouring elements, in the order a
kernel is likely to walk them (the logical order and the input's memory order). Imports torch and the standard
library only: task modules run in both workers.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import torch

PREFIX = 1 << 21
"""Elements tested for serial dependence: enough for any pattern a kernel's blocks or threads could leave."""
DELTA = 1e-10
"""The false-alarm probability a task's checks are built for."""


def bernstein(variance: float, bound: float, delta: float = DELTA) -> float:
    """t with P(|S - E S| >= t) <= delta, for S a sum of independent terms within `bound` of their means and of
    total `variance` (Bernstein's inequality solved for t)."""
    log = math.log(2.0 / delta)
    return bound * log / 3.0 + math.sqrt((bound * log / 3.0) ** 2 + 2.0 * variance * log)


def orders(x: torch.Tensor, *tensors: torch.Tensor, prefix: int = PREFIX) -> Iterator[tuple[str, list[Any]]]:
    """(name, the first `prefix` elements of each of `tensors`) in the logical order and, where it differs, in the
    memory order of `x` (a kernel may walk either)."""
    yield "logical", [t.reshape(-1)[:prefix] for t in tensors]
    dims = sorted(range(x.dim()), key=lambda d: -x.stride(d))
    if dims != list(range(x.dim())):
        yield "memory", [t.permute(dims).reshape(-1)[:prefix] for t in tensors]


def serial_dependence(y: torch.Tensor, v: torch.Tensor, bound: float, *, prefix: int = PREFIX,
                      delta: float = DELTA) -> str | None:
    """Why the centred values y (independent under the null, variances v, |y| <= bound) look serially dependent,
    or None: for each lag L, C_L = sum_i y_i y_{i+L} splits into two sums of independent terms (pairs whose first
    index lies in even / odd stretches of L), each bounded by Bernstein at delta / 10 / (2 lags) for half the
    variance W_L = sum_i v_i v_{i+L}."""
    m = min(y.numel(), prefix)
    if m < 4:
        return None
    lags = m // 2
    size = 1 << (2 * m - 1).bit_length()

    def autocorrelation(a: torch.Tensor) -> torch.Tensor:
        f = torch.fft.rfft(a[:m].double(), n=size)
        return torch.fft.irfft(f * f.conj(), n=size)[1:lags + 1]

    c, w = autocorrelation(y), autocorrelation(v).clamp_min(0.0)
    log = math.log(2.0 * 2 * lags / (10 * delta))
    b = bound * bound * log / 3.0
    limit = 2.0 * (b + torch.sqrt(b * b + 2.0 * (w / 2.0) * log))
    ratio = c.abs() / limit
    worst = int(ratio.argmax())
    if float(ratio[worst]) <= 1.0:
        return None
    return (f"lag {worst + 1}: sum of products {float(c[worst]):.4g}, bound {float(limit[worst]):.4g} "
            f"({float(ratio[worst]):.1f}x)")
