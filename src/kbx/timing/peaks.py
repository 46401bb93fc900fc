"""Measuring a device's peak bandwidth and matmul rates once, and caching them per device fingerprint.

Bandwidth: a device-to-device copy of a 1 GiB buffer, bytes read + written per second, best of several.
FLOP/s: a large cuBLAS matmul per dtype (fp32 with TF32 off, fp32 with TF32 on under the key `tf32`, fp16, bf16,
fp64, and int8 through `torch._int_mm` when torch has it), best of several. Best-of, because a peak is a bound:
the speed of light must not be slower than what the hardware did once.

The cache lives under `$KBX_CACHE_DIR/peaks/` (default `~/.cache/kbx/peaks/`), one JSON file per fingerprint:
GPU name, NVIDIA driver, torch and CUDA versions. A new driver or torch build is measured again.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from kbx.timing.sol import TF32, Peaks

COPY_BYTES = 1 << 30
MATMUL_SIZE = 8192
MATMUL_SECONDS = 0.3
"""Rough device time spent timing each dtype's matmul (after its warm-up)."""


def cache_root() -> Path:
    """`$KBX_CACHE_DIR`, else `~/.cache/kbx`: measured peaks (`peaks/`), the trusted worker's torch.compile caches
    (`inductor/`, `kbx.evaluation.orchestrator.trusted_client`) and Triton's host code for candidate workers
    (`triton-host/`, `kbx.evaluation.orchestrator.triton_host`) live under it, so carrying this one folder to another
    machine of the same kind carries them all."""
    root = os.environ.get("KBX_CACHE_DIR")
    return Path(root) if root else Path.home() / ".cache" / "kbx"


def cache_dir() -> Path:
    """Where peaks are cached: `$KBX_CACHE_DIR/peaks`, or `~/.cache/kbx/peaks`."""
    return cache_root() / "peaks"


def device_fingerprint(device: Any = None) -> dict[str, str]:
    """What measured peaks depend on: GPU name, NVIDIA driver, torch and CUDA versions."""
    import torch

    from kbx.timing.clocks import read_device_clocks

    index = _index(device)
    driver = read_device_clocks(index).driver
    if driver is None:  # no nvidia-smi: the CUDA driver API version is the next best identity
        api = getattr(torch._C, "_cuda_getDriverVersion", None)
        driver = f"cuda-driver-api-{api()}" if api is not None else "unknown"
    return {
        "gpu": torch.cuda.get_device_name(index),
        "driver": driver,
        "torch": torch.__version__,
        "cuda": str(torch.version.cuda),
    }


def cache_key(fingerprint: Mapping[str, Any]) -> str:
    """A file stem naming the GPU and hashing the whole fingerprint."""
    digest = hashlib.sha256(json.dumps(dict(fingerprint), sort_keys=True).encode()).hexdigest()[:16]
    slug = re.sub(r"[^A-Za-z0-9]+", "-", str(fingerprint.get("gpu", "gpu"))).strip("-").lower() or "gpu"
    return f"{slug}-{digest}"


def load_or_measure_peaks(
    device: Any = None,
    *,
    directory: Path | None = None,
    refresh: bool = False,
    fingerprint: Mapping[str, Any] | None = None,
    measure: Callable[[Any], Peaks] | None = None,
) -> Peaks:
    """Cached peaks for the device, measured (and cached) when there are none for its fingerprint.

    Args:
        device: A CUDA device (index, string or torch.device); the current one by default.
        directory: The cache directory; `cache_dir()` by default.
        refresh: Measure again even when cached.
        fingerprint: The device fingerprint; `device_fingerprint(device)` by default.
        measure: The measurement; `measure_peaks` by default.
    """
    fingerprint = dict(device_fingerprint(device) if fingerprint is None else fingerprint)
    path = (cache_dir() if directory is None else directory) / f"{cache_key(fingerprint)}.json"
    if not refresh and path.exists():
        try:
            cached = Peaks.loads(path.read_text())
        except (ValueError, KeyError, TypeError):  # a corrupt or outdated file: measure again
            cached = None
        if cached is not None and dict(cached.fingerprint) == fingerprint:
            return cached
    measured = (measure_peaks if measure is None else measure)(device)
    peaks = Peaks(
        bandwidth=measured.bandwidth,
        flops=measured.flops,
        device=measured.device or str(fingerprint.get("gpu", "")),
        fingerprint=fingerprint,
        method=measured.method,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(peaks.dumps())
    os.replace(partial, path)
    return peaks


def measure_peaks(device: Any = None) -> Peaks:
    """Measure bandwidth and matmul FLOP/s on a CUDA device (a few seconds on an H100)."""
    import torch

    index = _index(device)
    with torch.cuda.device(index):
        bandwidth = measure_bandwidth(index)
        flops = {key: rate for key in _matmul_keys() if (rate := measure_matmul(index, key)) is not None}
    method = (
        f"bandwidth: best of 10 device-to-device copies of {COPY_BYTES >> 20} MiB (read + write bytes); "
        f"flops: best of repeated {MATMUL_SIZE}^3 cuBLAS matmuls per dtype, 2*M*N*K per matmul; "
        "tf32 = fp32 inputs with TF32 allowed; int8 via torch._int_mm"
    )
    return Peaks(bandwidth=bandwidth, flops=flops, device=torch.cuda.get_device_name(index), method=method)


def measure_bandwidth(device: Any = None, nbytes: int = COPY_BYTES, repeats: int = 10) -> float:
    """Bytes read + written per second by the best of `repeats` device-to-device copies of `nbytes`."""
    import torch

    index = _index(device)
    with torch.cuda.device(index):
        free, _ = torch.cuda.mem_get_info(index)
        nbytes = max(1 << 20, min(nbytes, free // 4))
        src = torch.ones(nbytes, dtype=torch.uint8, device=torch.device("cuda", index))
        dst = torch.empty_like(src)
        for _ in range(3):
            dst.copy_(src)
        best = min(_elapsed_s(partial(dst.copy_, src), index) for _ in range(repeats))
        del src, dst
        torch.cuda.empty_cache()
    return 2 * nbytes / best


def measure_matmul(device: Any, key: str, size: int = MATMUL_SIZE) -> float | None:
    """Best FLOP/s of a size³ matmul for one peak key; None when the dtype cannot be multiplied here."""
    import torch

    index = _index(device)
    with torch.cuda.device(index), _tf32(key == TF32):
        a, b, call = _matmul_operands(key, size, index)
        try:
            call(a, b)
        except RuntimeError as exc:  # e.g. no kernel for this dtype on this GPU; running out of memory is a bug
            if isinstance(exc, torch.cuda.OutOfMemoryError):
                raise
            return None
        first = _elapsed_s(partial(call, a, b), index)
        repeats = max(3, min(20, int(MATMUL_SECONDS / max(first, 1e-6))))
        best = min(_elapsed_s(partial(call, a, b), index) for _ in range(repeats))
        del a, b
        torch.cuda.empty_cache()
    return 2.0 * size**3 / best


def _matmul_keys() -> tuple[str, ...]:
    import torch

    keys = ("float32", TF32, "float16", "bfloat16", "float64")
    return (*keys, "int8") if hasattr(torch, "_int_mm") else keys


def _matmul_operands(key: str, size: int, index: int) -> tuple[Any, Any, Callable[[Any, Any], Any]]:
    import torch

    device = torch.device("cuda", index)
    if key == "int8":
        make = lambda: torch.randint(-128, 128, (size, size), dtype=torch.int8, device=device)
        return make(), make(), torch._int_mm
    dtype = torch.float32 if key == TF32 else getattr(torch, key)
    make = lambda: torch.randn(size, size, dtype=dtype, device=device)
    return make(), make(), torch.matmul


@contextmanager
def _tf32(allowed: bool) -> Iterator[None]:
    """Set whether fp32 matmuls may use TF32, restoring the previous setting."""
    import torch

    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high" if allowed else "highest")
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(previous)


def _elapsed_s(fn: Callable[[], Any], index: int) -> float:
    """Device seconds of one call, between CUDA events on the current stream."""
    import torch

    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize(index)
    return start.elapsed_time(end) / 1e3


def _index(device: Any) -> int:
    import torch

    if device is None:
        return torch.cuda.current_device()
    if isinstance(device, int):
        return device
    resolved = torch.device(device)
    return resolved.index if resolved.index is not None else torch.cuda.current_device()
