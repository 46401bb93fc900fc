"""What the suite expects of its own candidates: `solution.py` and `honest/*.py` pass, `wrong/*.py` fail as they
declare, and where they can be judged.

An honest candidate is a correct kernel written as a third party would write it, from the textbook formula (exp(x) -
1 where PyTorch calls expm1, a block method `x.sum(axis=0)`): a false rejection is as bad a defect as a false pass,
and these keep the contracts and the harness honest about it.

A wrong candidate declares its status as a top-level literal, `EXPECT = "MISMATCH"`. A mistake that only a GPU
exposes (a TF32 dot, a data race, a launch limit, 32-bit offsets past 2^31 elements) also declares
`DEVICE = "cuda"`: the CPU interpreter runs it correctly, so CPU checks skip it and the GPU suite check
(`scripts/verify_tasks.py --device cuda`, `tests/gpu/test_suite_gpu.py`) runs it. Where the GPU's failure itself
depends on what lies in memory (an out-of-bounds read is a crash where the address is unmapped, garbage where it
is not), `EXPECT` is a tuple of the statuses it may get; it must never pass.

The other way round, `DEVICE = "cpu"` marks a mistake that only the CPU's reference shows: outputs are judged
against the float64 truth and allowed k times the eager reference's own error (`kbx.tasks.accuracy`), so where the
GPU's eager implementation makes the same rounding as the candidate, the candidate is as accurate as PyTorch there
and passes. (`addbmm` on CUDA adds one batch at a time into a half-precision output, as
`addbmm/wrong/running_sum_in_input_dtype` does; the CPU's sums in fp32.)
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from kbx import syntax

_MISSING = object()


def declared(path: Path, name: str, default: Any = _MISSING) -> Any:
    """The literal assigned to `name` at the top of a candidate file; `default` when there is none (ValueError
    when no default is given)."""
    for node in syntax.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    if default is _MISSING:
        raise ValueError(f'{path} has no top-level {name} = "..."')
    return default


def expected_statuses(path: Path) -> tuple[str, ...]:
    """`("PASSED",)` for a solution or an honest candidate; the statuses a wrong candidate's `EXPECT` allows (one, or
    a tuple)."""
    if path.name == "solution.py" or path.parent.name == "honest":
        return ("PASSED",)
    value = declared(path, "EXPECT")
    statuses = (value,) if isinstance(value, str) else tuple(value)
    if not statuses or not all(isinstance(s, str) for s in statuses) or "PASSED" in statuses and len(statuses) > 1:
        raise ValueError(f"{path}: EXPECT must be a status or a tuple of failing statuses, not {value!r}")
    return statuses


def expected_status(path: Path) -> str:
    """The expected status as one line: `PASSED`, `MISMATCH`, or `CRASHED | MISMATCH` for a tuple."""
    return " | ".join(expected_statuses(path))


def got_expected(path: Path, status: str) -> bool:
    """Whether a candidate's status is one its file expects."""
    return status in expected_statuses(path)


DEVICES = ("cuda", "cpu")


def required_device(path: Path) -> str | None:
    """The device a candidate's expected status needs (`DEVICE = "cuda"` or `"cpu"`), or None when any device
    shows it. A `DEVICE` bound to an expression is the kernel's own variable, not the marker: Triton's tutorials
    begin with `DEVICE = triton.runtime.driver.active.get_active_torch_device()`."""
    try:
        device = declared(path, "DEVICE", None)
    except ValueError:  # not a literal
        return None
    if device is not None and device not in DEVICES:
        raise ValueError(f'{path}: DEVICE must be "cuda" or "cpu" when given, not {device!r}')
    return device


def judged_on(path: Path, device: str) -> bool:
    """Whether `device` can show a candidate's expected status: a GPU-only mistake passes on the CPU interpreter, a
    CPU-only one on a GPU whose eager reference makes it too."""
    needed = required_device(path)
    return needed is None or needed == device


def device_reason(path: Path) -> str:
    """Why a check on another device skips a candidate (for skip messages)."""
    device = required_device(path)
    if path.parent.name == "honest":
        what = "an honest kernel that runs only there" if device == "cuda" else "an honest kernel for the CPU"
    else:
        what = "a mistake only a GPU exposes" if device == "cuda" else "a mistake only the CPU's reference exposes"
    return f'{path.parent.parent.name}/{path.parent.name}/{path.stem}: DEVICE = "{device}" ({what})'
