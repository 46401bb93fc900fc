"""Speed of light: the fastest any kernel could compute a task's outputs on a device (DESIGN §6).

T_SOL = max(FLOPs / peak FLOP/s at the dtype, minimum bytes / peak bandwidth). FLOPs come from
`torch.utils.flop_counter` on the reference (it counts matmuls, convolutions and attention; elementwise work
counts as zero, which leaves such tasks bound by bytes); minimum bytes are every input read once and every
output written once. Peaks are measured on the device (`kbx.timing.peaks`), not taken from a datasheet.

A candidate faster than the speed of light is rejected, so every choice here errs towards a smaller T_SOL:
bytes are a lower bound, and a dtype without its own measured peak uses the largest peak measured.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from kbx.timing._tensors import iter_tensors, storage_key

TF32 = "tf32"
"""Peak key for fp32 matmuls computed with TF32 tensor cores (the other keys are task dtype names)."""


@dataclass(frozen=True)
class Peaks:
    """Measured peak rates of one device."""

    bandwidth: float
    """Device memory bandwidth in bytes/s (bytes read + written per second by a large device-to-device copy)."""
    flops: Mapping[str, float]
    """Matmul FLOP/s per dtype name (`float32` with TF32 off, `tf32`, `float16`, `bfloat16`, `float64`, `int8`)."""
    device: str = ""
    """GPU name."""
    fingerprint: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """What the peaks are valid for: GPU name, driver, torch and CUDA versions (see `kbx.timing.peaks`)."""
    method: str = ""
    """How the peaks were measured."""

    def __post_init__(self) -> None:
        if not self.bandwidth > 0 or any(not v > 0 for v in self.flops.values()):
            raise ValueError(f"peaks must be positive: bandwidth {self.bandwidth}, flops {dict(self.flops)}")
        object.__setattr__(self, "flops", MappingProxyType({str(k): float(v) for k, v in self.flops.items()}))
        object.__setattr__(self, "fingerprint", MappingProxyType(dict(self.fingerprint)))

    def to_json(self) -> dict[str, Any]:
        return {
            "bandwidth": self.bandwidth,
            "flops": dict(self.flops),
            "device": self.device,
            "fingerprint": dict(self.fingerprint),
            "method": self.method,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Peaks:
        return cls(
            bandwidth=float(data["bandwidth"]),
            flops=dict(data["flops"]),
            device=str(data.get("device", "")),
            fingerprint=dict(data.get("fingerprint", {})),
            method=str(data.get("method", "")),
        )

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=True)

    @classmethod
    def loads(cls, text: str) -> Peaks:
        return cls.from_json(json.loads(text))


def count_flops(reference: Callable[..., Any], inputs: Mapping[str, Any]) -> int:
    """FLOPs `reference(**inputs)` performs, as counted by torch's FlopCounterMode (runs the reference once).

    Works on CPU and CUDA tensors alike. A matmul of (M, K) by (K, N) counts 2·M·N·K.
    """
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with torch.no_grad(), counter:
        reference(**inputs)
    return int(counter.get_total_flops())


def _unique_bytes(tensor: Any) -> int:
    """Bytes of the distinct elements a view addresses: broadcast (stride-0) dimensions add none."""
    distinct = 1
    for size, stride in zip(tensor.shape, tensor.stride()):
        if stride != 0:
            distinct *= size
    if tensor.numel() == 0:
        return 0
    return min(distinct * tensor.element_size(), tensor.untyped_storage().nbytes())


def _distinct_bytes(obj: Any) -> int:
    """Bytes of the tensors in `obj`, counting memory shared by several views once (the largest view)."""
    per_storage: dict[tuple[str, int], int] = {}
    for tensor in iter_tensors(obj):
        key = storage_key(tensor)
        per_storage[key] = max(per_storage.get(key, 0), _unique_bytes(tensor))
    return sum(per_storage.values())


def minimum_bytes(inputs: Any, outputs: Any) -> int:
    """Least memory traffic of any implementation: each input tensor read once, each output written once.

    Tensors are found in mappings, lists and tuples; scalars and other values count nothing. Views of one
    storage count once (as their largest view); an output that aliases an input still counts as a write.
    """
    return _distinct_bytes(inputs) + _distinct_bytes(outputs)


def peak_flops(peaks: Peaks, dtype: str, *, tf32: bool = False) -> float:
    """The FLOP/s bound for matmul work in `dtype`.

    `float32` with `tf32=True` (the task's contract allows TF32) uses the larger of the two fp32 peaks. A dtype
    with no measured peak uses the largest peak measured: an upper bound on any rate keeps T_SOL a lower bound,
    so the faster-than-light rejection cannot fire on an honest kernel because a peak was missing.
    """
    if not peaks.flops:
        raise ValueError("no FLOP peaks were measured")
    if dtype == "float32" and tf32:
        candidates = [peaks.flops[k] for k in ("float32", TF32) if k in peaks.flops]
        if candidates:
            return max(candidates)
    if dtype in peaks.flops:
        return peaks.flops[dtype]
    return max(peaks.flops.values())


def sol_time_s(flops: int, nbytes: int, peaks: Peaks, dtype: str, *, tf32: bool = False) -> float:
    """Speed-of-light time in seconds: max(flops / peak FLOP/s at `dtype`, nbytes / peak bandwidth)."""
    compute = flops / peak_flops(peaks, dtype, tf32=tf32) if flops > 0 else 0.0
    return max(compute, nbytes / peaks.bandwidth)


HARDWARE_LIMITS: Mapping[str, tuple[float, float]] = MappingProxyType({
    "NVIDIA H100 80GB HBM3": (3.35e12, 1979e12),
    "NVIDIA H100 PCIe": (2.0e12, 1513e12),
    "NVIDIA H100 NVL": (3.9e12, 1671e12),
    "NVIDIA H200": (4.8e12, 1979e12),
    "NVIDIA H200 NVL": (4.8e12, 1671e12),
    "NVIDIA A100-SXM4-80GB": (2.039e12, 624e12),
    "NVIDIA A100-SXM4-40GB": (1.555e12, 624e12),
})
"""Datasheet limits per GPU name (as torch reports it): memory bandwidth in bytes/s and the fastest dense tensor
rate of any dtype (FP8/INT8) in FLOP/s, at the maximum boost clock. No kernel can exceed them; the measured peaks
can be exceeded (on an H200, 2026-11-22, cuBLAS's own bmm ran at 1.13x the bf16 peak measured minutes before)."""


def loose_sol_time_s(flops: int, nbytes: int, peaks: Peaks) -> float:
    """The speed of light a faster-than-light verdict is held to: work at the fastest rate known for the device,
    the larger of the fastest measured peak of any dtype and the datasheet's limit (`HARDWARE_LIMITS`, where the
    GPU is listed). A kernel faster than this did not do the work."""
    bandwidth, fastest = HARDWARE_LIMITS.get(peaks.device, (0.0, 0.0))
    fastest = max([fastest, *peaks.flops.values()])
    return max(flops / fastest if flops > 0 else 0.0, nbytes / max(bandwidth, peaks.bandwidth))


def sol_fraction(sol_s: float, measured_s: float) -> float:
    """T_SOL / T_measured: 1 is the speed of light, above 1 is faster than physically possible."""
    if not measured_s > 0:
        return math.inf
    return sol_s / measured_s
