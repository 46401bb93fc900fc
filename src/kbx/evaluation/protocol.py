"""What the candidate worker reports to the orchestrator on its channel, as typed values (DESIGN §4).

One JSON object per line, `{"event": NAME, ...fields}`. The worker writes them with `encode`; the orchestrator reads
them with `decode`, which checks every field's type and turns anything else (not JSON, an unknown name, a missing or
mistyped field) into `Unreadable`. The candidate shares the worker's process and can write to the channel too, so a
decoded event proves nothing about who sent it: `kbx.evaluation.orchestrator.conversation` judges whether it fits
the protocol

    Started → Imported → (CaseStart k → CaseDone k)* → Timed* → Finished

and takes anything out of order, or unreadable, as forged. `ImportFailed`, `CaseFailed` end the worker early;
`ConfinementFailed` comes only before `Started`, from the harness's own code.

The orchestrator's replies on the other pipe are plain lines: "stop", or one JSON command (a case to run: `Case`'s
fields and `cmd: "case"`; a timing slot: `kbx.evaluation.orchestrator.performance`).

The trusted worker serves the orchestrator's requests (`TrustedRequest`), one at a time over a pipe of their own;
the candidate has no end of it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any, ClassVar, Literal, Union, get_args

TrustedRequest = Literal[
    "hello", "check", "reference", "footprint", "peaks", "clocks", "work", "prepare", "baseline", "release"
]
"""What the trusted worker does on request (each a method of its state, `kbx.evaluation.trusted.worker`): say which
device and environment it has; judge saved cases; compute a case's reference (whether it runs at all); size a
task's bench workloads; measure the device's peaks; read its clocks; count a slot's work; prepare a task's timing
slots (count work, compile baselines); time a baseline; let go of cached memory."""
TRUSTED_REQUESTS: tuple[str, ...] = get_args(TrustedRequest)
DESCRIPTORS = "descriptors"
"""The payload key of a request followed by descriptors (SCM_RIGHTS, right after it on the same socket): how many.
The trusted worker receives them before serving and passes them on under the same key (`check`: the CUDA
descriptors of the cases' shared outputs, `kbx.evaluation.cuda_share`)."""
JUDGES_VARIABLE = "KBX_TRUSTED_JUDGES"
"""Set in each trusted worker's environment: how many judging workers of one evaluator share a GPU's memory for
cached references (`kbx.evaluation.trusted.references.budget`)."""

TIMED = -1
"""The case index a failure during the performance stage is reported under."""


@dataclass(frozen=True)
class Started:
    """The worker is confined and ready; nothing of the candidate has run yet."""

    name: ClassVar[str] = "started"
    pid: int


@dataclass(frozen=True)
class Imported:
    """The candidate module imported and passed the guards' check."""

    name: ClassVar[str] = "imported"


@dataclass(frozen=True)
class CaseStart:
    name: ClassVar[str] = "case_start"
    index: int


@dataclass(frozen=True)
class TorchWork:
    """What torch's operators did during one call (`kbx.evaluation.candidate.torch_compute`), for the orchestrator's
    rule: elements touched per operator (summed over its calls) and the largest input's elements."""

    ops: Mapping[str, int]
    largest_input: int


@dataclass(frozen=True)
class Launches:
    """What the CUDA driver's launch trace saw during one call on a GPU (`kbx.evaluation.candidate.launch_trace`),
    for the orchestrator's rule (`kbx.evaluation.orchestrator.launches`)."""

    own: int
    """Launches of the candidate's own kernels (compiled by Triton in its process, launched by Triton's launcher)."""
    dispatched: int
    """Launches made inside a torch operator, whose work the torch-work recorder judges."""
    foreign: Mapping[str, int]
    """Library kernels neither the candidate's own nor launched by a torch operator: launches by kernel name."""
    stray_torch: Mapping[str, int]
    """torch's own kernels (`at::`) with no operator on record: launches by kernel name."""
    stray_torch_ns: int
    """GPU time of the `stray_torch` kernels."""
    kernel_ns: int
    """GPU time of every kernel of the call."""
    host_bytes: int
    """Bytes copied between the host and the device."""
    largest_input_bytes: int


@dataclass(frozen=True)
class CaseDone:
    """A case's outputs are saved (`file`, in the job directory) for the trusted worker to judge."""

    name: ClassVar[str] = "case_done"
    index: int
    file: str
    mutated: tuple[str, ...]
    """Inputs whose values the call changed."""
    torch_work: TorchWork
    launches: Launches | None = None
    """The launch trace of the call (GPU only)."""


@dataclass(frozen=True)
class ImportFailed:
    """Importing the candidate raised (or the guards rejected what the import did)."""

    name: ClassVar[str] = "import_error"
    status: str
    error: str
    traceback: str


@dataclass(frozen=True)
class CaseFailed:
    """A case (or, with index TIMED, the performance stage) failed in the candidate; the worker exits."""

    name: ClassVar[str] = "case_error"
    index: int
    status: str
    error: str
    traceback: str


@dataclass(frozen=True)
class Timed:
    """A timing slot measured: the measurement's file and, in a re-checked round, the outputs' file."""

    name: ClassVar[str] = "timed"
    slot: int
    measurement: str
    file: str | None = None
    launches: Launches | None = None
    """The launch trace of the re-checked call (in the round that has one)."""


@dataclass(frozen=True)
class Finished:
    name: ClassVar[str] = "finished"
    launchers: tuple[tuple[str, ...], ...] = ()
    """The Triton launcher signatures the worker's launches needed (`kbx.evaluation.candidate.triton_host`): the
    candidate's data, like everything on the channel (`kbx.evaluation.orchestrator.triton_host` checks them)."""


@dataclass(frozen=True)
class ConfinementFailed:
    """The worker could not confine itself: the harness's failure (the candidate had not run), which ends the run."""

    name: ClassVar[str] = "confinement_failed"
    error: str


@dataclass(frozen=True)
class Unreadable:
    """A line that is no event of the protocol (the worker never writes one: it was forged)."""

    name: ClassVar[str] = "unreadable"
    line: str


Event = Union[  # noqa: UP007 - a runtime alias
    Started, Imported, CaseStart, CaseDone, ImportFailed, CaseFailed, Timed, Finished, ConfinementFailed, Unreadable
]
_KINDS: dict[str, type] = {
    kind.name: kind
    for kind in (Started, Imported, CaseStart, CaseDone, ImportFailed, CaseFailed, Timed, Finished, ConfinementFailed)
}


def encode(event: Event) -> str:
    """One line of the channel (without its newline)."""
    return json.dumps({"event": event.name, **asdict(event)})


def decode(line: bytes | str) -> Event:
    """The event a line carries, or `Unreadable`."""
    text = line.decode(errors="replace") if isinstance(line, bytes) else line
    try:
        raw = json.loads(text)
        kind = _KINDS[raw.pop("event")]
        return kind(**{f.name: _field(f.name, raw[f.name]) for f in fields(kind) if f.name in raw or _required(f)})
    except (ValueError, KeyError, TypeError, AttributeError):
        return Unreadable(text[:200])


def _required(f: Any) -> bool:
    return f.default is MISSING and f.default_factory is MISSING


def _field(name: str, value: Any) -> Any:
    """`value` checked (and converted to its immutable form) for the field `name`; TypeError when it does not fit."""
    if name in ("pid", "index", "slot"):
        return _exact(value, int)
    if name in ("status", "error", "traceback", "measurement", "line"):
        return _exact(value, str)
    if name == "file":
        return None if value is None else _exact(value, str)
    if name == "mutated":
        if not isinstance(value, list):
            raise TypeError(name)
        return tuple(_exact(v, str) for v in value)
    if name == "launchers":
        if not isinstance(value, list):
            raise TypeError(name)
        return tuple(tuple(_exact(t, str) for t in _exact(signature, list)) for signature in value)
    if name == "torch_work":
        ops = value["ops"]
        return TorchWork(_counts(ops), _exact(value["largest_input"], int))
    if name == "launches":
        if value is None:
            return None
        return Launches(
            _exact(value["own"], int), _exact(value["dispatched"], int), _counts(value["foreign"]),
            _counts(value["stray_torch"]), _exact(value["stray_torch_ns"], int), _exact(value["kernel_ns"], int),
            _exact(value["host_bytes"], int), _exact(value["largest_input_bytes"], int),
        )
    raise TypeError(name)


def _counts(value: Any) -> dict[str, int]:
    if not isinstance(value, dict):
        raise TypeError("not a mapping of counts")
    return {_exact(k, str): _exact(v, int) for k, v in value.items()}


def _exact(value: Any, kind: type) -> Any:
    if type(value) is not kind:  # bool is an int, and no index is a bool
        raise TypeError(f"{value!r} is not {kind.__name__}")
    return value
