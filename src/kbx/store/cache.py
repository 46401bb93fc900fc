"""What makes two evaluations the same work, so the second can be served from the store (DESIGN §7).

The key is the candidate's content hash, the task's version (a hash of its task.py), the device fingerprint (GPU
model and the software stack, or the CPU interpreter's), the harness version (kbx's version and a hash of the code
that decides verdicts and timings) and the timing settings. The secret seed is not part of it: a cached verdict
was reached on another run's secret cases, which is why a served row says which run it came from.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import kbx

_VERDICT_CODE = ("candidates", "evaluation", "timing", "tasks")
"""The packages whose code decides a verdict or a timing: changing any of them changes the harness version."""

_DEVICE_FIELDS = ("device", "gpu", "compute_capability", "cuda", "torch", "triton", "triton_mode", "confinement")
"""The environment fields that make a device the same device for caching (not the host name); an unconfined
verdict is never served to a confined run, nor the other way round."""


@cache
def harness_version() -> str:
    """kbx's version plus a hash of the verdict-deciding sources, e.g. `0.1.0+3f2a9c1e0b7d`."""
    root = Path(kbx.__file__).parent
    digest = hashlib.sha256()
    for package in _VERDICT_CODE:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return f"{kbx.__version__}+{digest.hexdigest()[:12]}"


def device_fingerprint(environment: dict[str, Any]) -> dict[str, Any]:
    return {name: environment.get(name) for name in _DEVICE_FIELDS if name in environment}


def cache_key(candidate_hash: str, task_version: str, environment: dict[str, Any], timing: Any,
              contract: str | None = None, policy: str | None = None) -> str:
    """The key under which an evaluation is stored and looked up; `contract`: a rule judged beside kbx's
    (`--contract`), whose verdict the row then holds (a row without it is not the same work); `policy`: the rules
    it was judged under where they are not every rule (`kbx.candidates.policy`; None for a kernel's), so the task's
    own code judged as an oracle is never served to the same source submitted as a kernel."""
    material = {
        "candidate": candidate_hash,
        "task": task_version,
        "device": device_fingerprint(environment),
        "harness": harness_version(),
        "timing": timing,
        **({"contract": contract} if contract else {}),
        **({"policy": policy} if policy else {}),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:32]
