"""The environment fingerprint recorded with every evaluation."""

from __future__ import annotations

import os
import platform
import sys
from typing import Any


def fingerprint(device: str) -> dict[str, Any]:
    """Versions and device identity; timing-related fields (clocks, driver) join when timing lands."""
    import torch
    import triton

    info: dict[str, Any] = {
        "device": device,
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "triton": triton.__version__,
        "host": platform.node(),
        "platform": platform.platform(),
    }
    if device == "cuda":
        props = torch.cuda.get_device_properties(0)
        info.update(
            cuda_visible_devices=os.environ.get("CUDA_VISIBLE_DEVICES"),
            gpu=props.name,
            sm_count=props.multi_processor_count,
            memory_bytes=props.total_memory,
            compute_capability=f"{props.major}.{props.minor}",
            cuda=torch.version.cuda,
        )
    else:
        info["triton_mode"] = "interpreter"
    return info
