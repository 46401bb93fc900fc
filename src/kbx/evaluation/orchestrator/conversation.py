"""The orchestrator's side of one candidate worker's channel (DESIGN §4: results travel on a channel the candidate
cannot forge).

The worker is told its work one command at a time: the next case only after the last was judged, then the
performance stage's slots. So its process never holds a case it has not been asked for (no seeds of later cases,
no perturbed sizes), and every event it sends has exactly one place in the protocol:

    Started → Imported → (CaseStart k → CaseDone k)* → Timed* → Finished      (`kbx.evaluation.protocol`)

The candidate shares the worker's process and can write to the channel too. Any event out of that order — a
report for a case not asked for, a second report, a `Finished` before being told to stop, a line that is no event
of the protocol — is taken as forged: the worker is stopped and the candidate is REJECTED_RUNTIME
(`runtime.forged_channel`). A case's report also carries the tally of torch's work during the call, which is judged
here (`kbx.evaluation.orchestrator.torch_work`) before the outputs are, and on a GPU the call's launch trace
(`kbx.evaluation.orchestrator.launches`), as is the trace of the re-checked call of the performance stage.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from kbx.errors import KbxError
from kbx.evaluation.cases import Case, case_seed
from kbx.evaluation.orchestrator.gpu_gate import GpuGate
from kbx.evaluation.orchestrator.launches import launch_violation
from kbx.evaluation.orchestrator.performance import PerformanceStage
from kbx.evaluation.orchestrator.torch_work import torch_compute_violation
from kbx.evaluation.protocol import (
    CaseDone,
    CaseFailed,
    CaseStart,
    ConfinementFailed,
    Event,
    Imported,
    ImportFailed,
    Started,
    Timed,
    Unreadable,
    encode,
)
from kbx.tasks.spec import Task

JudgeCase = Callable[[Case, Path, list[str]], bool]
"""Judges a saved case (the case, its file, the inputs the worker saw change); True when it passed."""


REFILL_SUFFIX = "~refill"
"""Appended to the workload name of the case run on the previous case's input tensors, refilled in place."""


def refill_case(task: Task, cases: list[Case], secret_seed: int) -> Case | None:
    """A repeat of the last planned case with new values from the secret seed, to be run on the previous case's
    input tensors with the new values written into them in place (same pointers, shapes and version counters): a
    cache keyed on the inputs' identity answers it with the previous case's outputs."""
    if not cases:
        return None
    last = cases[-1]
    params = last.params if last.params is not None else task.workload(last.workload).params
    name = last.workload + REFILL_SUFFIX
    seed = case_seed(secret_seed, task.name, name, last.dtype)
    return replace(last, index=len(cases), workload=name, seed=seed, secret=True, params=dict(params), seed_shift=0,
                   twin=None)


_PHASE_OF = {"started": "start", "imported": "import"}
"""The phase the time up to an event belongs to, where it is not the case or timing work in progress."""


class Conversation:
    """Answers the worker's events: hands out cases, judges them, then hands over to the performance stage."""

    def __init__(
        self,
        cases: list[Case],
        judge: JudgeCase,
        job_dir: Path,
        stage: PerformanceStage | None = None,
        refill_index: int | None = None,
        gate: GpuGate | None = None,
        own_kernels: bool = False,
        watched: bool = True,
    ) -> None:
        """`gate`: the GPU's gate when the run times candidates; held shared from the first case until the last
        is judged (the performance stage then takes it exclusively). `own_kernels`: every traced call must
        launch a kernel of the candidate's compiled extensions (a CUDA candidate). `watched`: whether each case's
        torch work and each traced call's launch trace are judged; False for the cases of KernelBench's own rule,
        which has no such check (`kbx.kernelbench_rule`) and decides nothing of kbx's verdict, and for a candidate
        that is the task's own reference code (`kbx.candidates.policy.Policy.REFERENCE_CODE`)."""
        self._own_kernels = own_kernels
        self._watched = watched
        self.cases = cases
        self._gate = gate
        self._sharing = False
        self._closed = False
        self._lifecycle = threading.Lock()
        """Guards `_sharing` and `_closed`: events are answered on the worker's reader thread, `close` comes from
        the evaluating thread once the worker has ended, possibly while the reader still waits for the GPU."""
        self._judge = judge
        self._job_dir = job_dir
        self._stage = stage
        self._refill_index = refill_index
        self.rejected = ""
        """Why the orchestrator rejected the candidate from its reports (a forged channel, torch doing the work);
        empty when it did not."""
        self._started = False
        self._imported = False
        self._asked: int | None = None
        """Index of the case the worker was told to run and has not reported yet."""
        self._case_started = False
        self._timing = False
        self._stopped = False
        self._reported: set[int] = set()
        """Cases reported done: a later report of any kind for one of them is forged."""
        self.phases: dict[str, float] = {}
        """Wall seconds by phase, as the orchestrator saw them: `start` (process and torch start), `import` (the
        candidate module), `cases` (the worker making inputs, calling and saving), `judge` (the trusted worker
        reading and comparing), `gpu_wait` (waiting for a GPU that a performance stage held), `prepare` (the trusted
        worker compiling the baselines and counting the work before the stage), `performance` (the
        timing stage, both sides, its wait for the GPU included)."""
        self._since = time.monotonic()

    def close(self) -> None:
        """Let go of the GPU (idempotent): the worker has ended, however it ended; a wait for the GPU still under
        way gives it straight back when it ends."""
        with self._lifecycle:
            self._closed = True
        self._leave_cases()

    def _enter_cases(self) -> None:
        if self._gate is None or self._sharing:
            return
        self._gate.acquire_shared()
        with self._lifecycle:
            closed = self._closed
            self._sharing = not closed
        if closed:
            self._gate.release_shared()
        self._spent("gpu_wait")

    def _leave_cases(self) -> None:
        with self._lifecycle:
            sharing, self._sharing = self._sharing, False
        if sharing and self._gate is not None:
            self._gate.release_shared()

    def on_event(self, event: Event) -> str | None:
        self._spent(_PHASE_OF.get(event.name, "performance" if self._timing else "cases"))
        try:
            return self._answer(event)
        finally:
            self._spent("performance" if self._timing else "judge")

    def _spent(self, phase: str) -> None:
        now = time.monotonic()
        self.phases[phase] = self.phases.get(phase, 0.0) + now - self._since
        self._since = now

    def _answer(self, event: Event) -> str | None:
        if isinstance(event, ConfinementFailed) and not self._started:  # before any candidate code could run
            raise KbxError(f"the candidate worker {event.error[:300]}")
        if isinstance(event, (ImportFailed, CaseFailed)):
            if isinstance(event, CaseFailed) and event.index in self._reported:
                return self._forge(f"a failure reported for case {event.index}, which was reported done")
            self._stopped = True  # the worker reports its failure and exits; the pipeline reads it from the events
            self._leave_cases()
            return None
        if event.name == "finished":
            return None if self._stopped else self._forge("the worker reported `finished` before it was done")
        if self._stopped:
            return self._forge(f"an event ({event.name!r}) after the worker was told to stop")
        if isinstance(event, Started) and not self._started:
            self._started = True
            return None
        if isinstance(event, Imported) and self._started and not self._imported:
            self._imported = True
            self._enter_cases()
            return self._next_case(0)
        if isinstance(event, CaseStart) and event.index == self._asked and not self._case_started:
            self._case_started = True
            return None
        if isinstance(event, CaseDone) and event.index == self._asked and self._case_started:
            return self._case_done(event)
        if isinstance(event, Timed) and self._timing and self._stage is not None:
            launches = launch_violation(event.launches, self._own_kernels) if self._watched else ""
            if launches:
                return self._reject(launches)
            return self._reply(self._stage.on_timed(event))
        return self._forge(f"an event out of protocol: {_shown(event)}")

    def _case_done(self, event: CaseDone) -> str:
        assert self._asked is not None
        case = self.cases[self._asked]
        self._reported.add(case.index)
        path = self._job_dir / f"case_{case.index}.pt"
        if event.file != path.name or path.is_symlink() or not path.is_file():
            return self._forge(f"the report of {case.label()} does not match what the worker saves")
        evidence = (torch_compute_violation(event.torch_work) or launch_violation(event.launches, self._own_kernels)
                    if self._watched else None)
        if evidence:
            path.unlink(missing_ok=True)
            return self._reject(evidence)
        try:
            passed = self._judge(case, path, list(event.mutated))
        finally:
            path.unlink(missing_ok=True)
            self._spent("judge")
        if not passed:
            return self._reply("stop")
        if case.index + 1 < len(self.cases):
            return self._next_case(case.index + 1)
        self._asked = None
        if self._stage is not None:
            self._spent("judge")
            self._stage.prepare()  # still sharing the GPU: the compilation and FLOP counts need no quiet device
            self._spent("prepare")
        self._leave_cases()
        if self._stage is None:
            return self._reply("stop")
        self._timing = True
        return self._reply(self._stage.on_cases_done())

    def _next_case(self, index: int) -> str:
        if index >= len(self.cases):
            return self._reply("stop")
        self._asked, self._case_started = index, False
        command = {"cmd": "case", **self.cases[index].to_json()}
        if index == self._refill_index:
            command["refill"] = True
        if self._stage is not None and self.cases[index].role == "bench":
            command["full_tuning"] = True  # the autotuner's choice here is the one the performance stage times
        return json.dumps(command)

    def _reply(self, line: str) -> str:
        if line == "stop":
            self._stopped = True
            self._leave_cases()
        return line

    def _forge(self, why: str) -> str:
        return self._reject(f"runtime.forged_channel: {why}")

    def _reject(self, why: str) -> str:
        if not self.rejected:
            self.rejected = why
        self._stopped = True
        self._leave_cases()
        return "stop"


def _shown(event: Event) -> str:
    """An event as the verdict quotes it: its line on the channel, cut short."""
    return (event.line if isinstance(event, Unreadable) else encode(event))[:200]
