"""GPU clocks and driver version from `nvidia-smi`, recorded at the start and end of timing (DESIGN §6).

Trusted code only: it runs a subprocess. Every field is None when nvidia-smi is missing, fails or reports N/A,
so a reading never raises and never invents a number.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import asdict, dataclass
from typing import Any

QUERY = "clocks.sm,clocks.mem,clocks.max.sm,driver_version,name"
"""The nvidia-smi fields read, in the order of `GpuClocks`' first five fields."""


@dataclass(frozen=True)
class GpuClocks:
    """One reading of a GPU's clocks."""

    sm_mhz: int | None = None
    """Current SM clock."""
    mem_mhz: int | None = None
    """Current memory clock."""
    max_sm_mhz: int | None = None
    """Maximum SM clock."""
    driver: str | None = None
    """NVIDIA driver version, e.g. `550.54.15`."""
    name: str | None = None
    """GPU name as nvidia-smi prints it."""
    error: str | None = None
    """Why the fields are None, when they are."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _int_or_none(text: str) -> int | None:
    try:
        return int(float(text))
    except ValueError:  # "[N/A]", "[Not Supported]", empty
        return None


def _text_or_none(text: str) -> str | None:
    return None if not text or text.startswith("[") else text


def parse_line(line: str) -> GpuClocks:
    """Parse one line of `--format=csv,noheader,nounits` output for QUERY."""
    parts = [p.strip() for p in line.strip().split(",")]
    if len(parts) < 5:
        return GpuClocks(error=f"unexpected nvidia-smi output: {line.strip()[:200]!r}")
    # A GPU name may itself contain commas: everything after the driver is the name.
    sm, mem, max_sm, driver = parts[:4]
    return GpuClocks(
        sm_mhz=_int_or_none(sm),
        mem_mhz=_int_or_none(mem),
        max_sm_mhz=_int_or_none(max_sm),
        driver=_text_or_none(driver),
        name=_text_or_none(", ".join(parts[4:])),
    )


def read_clocks(gpu: int | str = 0, *, executable: str = "nvidia-smi", timeout_s: float = 10.0) -> GpuClocks:
    """Read the clocks of one GPU.

    Args:
        gpu: What `nvidia-smi -i` accepts: a physical index, a UUID (`GPU-...`) or a PCI bus id. A torch device
            index is not a physical index when CUDA_VISIBLE_DEVICES is set: see `read_device_clocks`.
        executable: The nvidia-smi binary.
        timeout_s: Give up (fields None) after this long.
    """
    path = shutil.which(executable)
    if path is None:
        return GpuClocks(error=f"{executable} not found")
    command = [path, f"--query-gpu={QUERY}", "--format=csv,noheader,nounits", "-i", str(gpu)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return GpuClocks(error=f"{type(exc).__name__}: {exc}")
    if done.returncode != 0:
        return GpuClocks(error=f"nvidia-smi exited {done.returncode}: {(done.stderr or done.stdout).strip()[:200]}")
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if not lines:
        return GpuClocks(error="nvidia-smi printed nothing")
    return parse_line(lines[0])


def smi_ids(torch_index: int = 0) -> list[str]:
    """Ids nvidia-smi may know a torch CUDA device by, best first: its UUID, then the entry of
    CUDA_VISIBLE_DEVICES for it (a physical index or UUID), then the torch index itself."""
    import torch

    ids = []
    uuid = getattr(torch.cuda.get_device_properties(torch_index), "uuid", None)
    if uuid is not None:
        text = str(uuid)  # torch prints the bare 8-4-4-4-12 form; nvidia-smi wants the GPU- prefix
        ids.append(text if text.startswith(("GPU-", "MIG-")) else f"GPU-{text}")
    visible = [v.strip() for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if v.strip()]
    if torch_index < len(visible):
        ids.append(visible[torch_index])
    else:
        ids.append(str(torch_index))
    return list(dict.fromkeys(ids))


def read_device_clocks(torch_index: int = 0, *, executable: str = "nvidia-smi") -> GpuClocks:
    """`read_clocks` for a torch CUDA device, trying each of its `smi_ids` until one answers.

    Under MIG, nvidia-smi may refuse the instance's UUID; the fallback ids then read the parent GPU.
    """
    reading = GpuClocks(error="no nvidia-smi id for this device")
    for gpu in smi_ids(torch_index):
        reading = read_clocks(gpu, executable=executable)
        if reading.error is None or "not found" in reading.error:
            return reading
    return reading
