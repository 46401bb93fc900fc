"""An evaluation that ran short of GPU memory beside others runs again with the GPU's memory to itself.

Several evaluations share a GPU (`kbx run --jobs N`, the threads of an RL loop): the memory one of them can allocate
then depends on what the others hold, which is no property of its candidate. On the H200 on 2026-11-27, four
KernelBench problems at a time (6 GiB tensors each) gave two honest candidates OUT_OF_MEMORY and five cases NOT
JUDGED with the trusted worker out of memory (docs/kernelbench.md). So every evaluation on a GPU holds that GPU's
memory gate (`gpu_gate.memory_gate`) shared for its whole run; one that ran short of memory while another held it
too runs once more holding it exclusively, and that run's outcome is its outcome. Only memory a candidate cannot
get alone is held against it: before that run the trusted workers drop their cached references and input sets
(`TrustedPool.forget_everywhere`), and one that ran short with no other evaluation beside it runs again so too
(a 2^31-element bench did, on an H200 on 2026-11-28, beside the judges' caches alone).

A bench workload may need more memory than a GPU has (`Workload.min_gpu_gib`): that GPU leaves it out, and
`left_out_note` says so in the message.

Short of memory: the candidate's OUT_OF_MEMORY, a worker killed as if out of memory (CRASHED, SIGKILL), or the
trusted worker or the task's reference out of memory (`ReferenceFailed`, NOT JUDGED). The first attempt's seconds
are kept in the outcome's phases (`short_of_memory`), and which process ran short in its message (`NOTE`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kbx.errors import ReferenceFailed
from kbx.evaluation.orchestrator.gpu_gate import GpuGate
from kbx.evaluation.result import Evaluation
from kbx.status import Status

_OUT_OF_MEMORY = re.compile(r"out of memory|OutOfMemoryError", re.IGNORECASE)

PHASE = "short_of_memory"
"""The phase that holds the seconds of a first attempt that ran short of memory beside others."""
NOTE = "judged alone: short of GPU memory beside other evaluations"
"""The start of the note an evaluation judged alone carries in its message, followed by what ran short."""


def says_out_of_memory(text: str) -> bool:
    """Whether a failure's text (a message, an exception's) says memory ran out."""
    return bool(_OUT_OF_MEMORY.search(text))


def short_of_memory(evaluation: Evaluation) -> bool:
    """Whether the evaluation ended for want of memory."""
    if evaluation.status is Status.OUT_OF_MEMORY:
        return True
    return evaluation.status is Status.CRASHED and says_out_of_memory(evaluation.message or "")


def alone_if_short(gate: GpuGate | None, run: Callable[[], Evaluation],
                   make_room: Callable[[], None] | None = None) -> Evaluation:
    """`run()` holding `gate` shared; again holding it exclusively when the first run ran short of memory while
    another evaluation held the gate too, or at all where `make_room` can free memory the harness keeps (the
    trusted workers' caches), which it is called to do first. `gate` None (a CPU): `run()` once.

    Raises:
        ReferenceFailed: from `run()`, unless it was for want of memory beside others or the harness's caches (then
            the second run's outcome, or what it raises).
    """
    if gate is None:
        return run()
    began = time.monotonic()
    evaluation: Evaluation | None = None
    failure: ReferenceFailed | None = None
    gate.acquire_shared()
    admitted = gate.admitted
    try:
        try:
            evaluation = run()
        except ReferenceFailed as exc:
            if not says_out_of_memory(str(exc)):
                raise
            failure = exc
    finally:
        company = gate.shared_holders > 1 or gate.admitted != admitted
        gate.release_shared()
    again = company or make_room is not None
    if evaluation is not None and not (again and short_of_memory(evaluation)):
        return evaluation
    if failure is not None and not again:
        raise failure
    first = time.monotonic() - began
    short = _first_line(str(failure) if failure is not None else evaluation.message if evaluation else "")
    gate.acquire_exclusive()
    try:
        if make_room is not None:
            make_room()
        evaluation = run()
    finally:
        gate.release_exclusive()
    note = f"{NOTE} ({short})"
    message = f"{note}; {evaluation.message}" if evaluation.message else note
    return replace(evaluation, phases={**evaluation.phases, PHASE: round(first, 3)}, message=message)


def _first_line(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:160]


def left_out_note(message: str, left_out: tuple[str, ...], environment: dict[str, Any]) -> str:
    """An evaluation's message with the note of the workloads this GPU left out for want of memory
    (`Task.fit_to_gpu`), if any."""
    if not left_out:
        return message
    gib = environment.get("memory_bytes", 0) / 2**30
    note = f"not run on this GPU ({gib:.0f} GiB): {', '.join(left_out)}, which need more memory"
    return f"{note}; {message}" if message else note
