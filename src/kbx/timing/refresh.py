"""New values for every timed call: the defence against caches keyed on input content.

Rotating a few input sets changes the pointers a call sees, not the data: a candidate that fingerprints a few
input values and returns a stored output (copied into a fresh tensor, so no output is ever returned twice) would
answer every timed call from its cache and look many times faster than it is. Before each timed call,
`ValueRefresher` multiplies every floating-point input of the set about to be used, element by element, by its own
random factor in [1 - RELATIVE, 1 + RELATIVE]: no two calls see the same values, so a content cache never hits,
and since the factors differ per element no output is a cheap transform (a scaled copy) of an earlier one.

What it keeps: shapes, strides, pointers, signs, zeros, infinities and NaNs, and the values' scale to within a
few percent (the product of the factors drifts like a random walk: over the ~700 visits a set gets in the longest
measurement, by about ±2^-6 * sqrt(700 / 3) ≈ 24 % at one standard deviation), so the work timed is the work of
the task's inputs. An input whose reference only accepts values in an interval (a task's `input_ranges`: the
probabilities of `bernoulli`, for which torch raises, on a GPU with a device-side assert, at p > 1) is clamped
back into it after scaling (`keep_within`). Integer and boolean inputs are left alone (indices must stay valid);
so are inputs whose elements share memory (expanded tensors), which cannot be written in place. The refresh runs
before the L2 flush, outside the timed interval, on the eager and compiled baselines exactly as on the candidate.

After timing, the candidate worker writes the re-check case's values into the set it used last
(`candidate_worker.refill`), so the drift never reaches a correctness verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

RELATIVE = 2.0**-6
"""Half-width of each element's factor: a few units of bf16's last place, so almost every element changes."""

CHUNK_ELEMENTS = 1 << 24
"""Noise is drawn this many elements at a time, so the refresh needs at most 64 MiB of scratch."""


class ValueRefresher:
    """Multiplies the floating-point inputs of a call by fresh per-element factors near 1, in place.

    Build it before any candidate code is imported: it binds the torch functions it calls when built, so a later
    monkey-patch (of `Tensor.mul_`, say) cannot turn it into a no-op.
    """

    def __init__(self, device: Any, seed: int = 0, relative: float = RELATIVE) -> None:
        import torch

        self._generator = torch.Generator(device=device).manual_seed(seed)
        self._relative = relative
        self._empty = torch.empty
        self._uniform = torch.Tensor.uniform_
        self._mul = torch.Tensor.mul_
        self._clamp = torch.Tensor.clamp_
        self._split = torch.Tensor.split
        self._is_floating_point = torch.Tensor.is_floating_point
        self._numel = torch.Tensor.numel
        self._dim = torch.Tensor.dim
        self._tensor = torch.Tensor
        self._float32 = torch.float32
        self._no_grad = torch.no_grad
        self._ranges: dict[str, tuple[float, float]] = {}

    def keep_within(self, ranges: Mapping[str, Sequence[float]]) -> None:
        """From the next call on, clamp each named input into its closed interval after scaling it (a task's
        `input_ranges`); inputs not named are only scaled."""
        self._ranges = {name: (float(low), float(high)) for name, (low, high) in ranges.items()}

    def __call__(self, inputs: Mapping[str, Any]) -> None:
        with self._no_grad():
            for name, value in inputs.items():
                if isinstance(value, self._tensor) and self._is_floating_point(value) and self._numel(value):
                    self._refresh(value, self._ranges.get(name))

    def _refresh(self, tensor: Any, interval: tuple[float, float] | None) -> None:
        chunks = [tensor]
        numel = self._numel(tensor)
        if self._dim(tensor) and numel > CHUNK_ELEMENTS:
            rows = max(1, CHUNK_ELEMENTS // max(1, numel // tensor.shape[0]))
            chunks = self._split(tensor, rows, 0)
        for chunk in chunks:
            noise = self._empty(chunk.shape, dtype=self._float32, device=chunk.device)
            self._uniform(noise, 1.0 - self._relative, 1.0 + self._relative, generator=self._generator)
            try:
                self._mul(chunk, noise)
            except RuntimeError:  # elements sharing memory (an expanded tensor): leave it as it is
                return
            if interval is not None:
                self._clamp(chunk, *interval)
