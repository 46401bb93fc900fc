"""The performance stage (DESIGN §6), driven from the orchestrator once a candidate has passed every case on a GPU.

For each bench workload × dtype (a *slot*) and each of `rounds` rounds, in this order: the trusted worker times the
eager baseline (the task's `baseline` where it has one, else its reference; `kbx.tasks.baseline`) and its
`torch.compile`, then the candidate worker times the candidate; all three on the same rotated input sets (drawn
from the run's secret seed), with the GPU held exclusively for the whole stage
(`kbx.evaluation.orchestrator.gpu_gate`: no other candidate's work runs beside a timed call), so clock drift hits
every side alike. After each candidate measurement:
- in one round per slot, drawn from the secret seed, the candidate is called once more on new values written into
  the input tensors it was just timed on, and that output is judged by the trusted worker (a candidate right when
  checked and wrong while timed is REJECTED_RUNTIME, `runtime.timing_recheck`). One round, not every round: moving
  a bench-sized output to the trusted worker costs seconds, and a candidate cannot tell in advance which round it
  is without reading the worker's commands, which only code that patches the worker can do (and such code can
  defeat any in-process check; see docs/anticheat.md). The candidate worker's own checks (a kernel launched by
  every timed call, no output reused from an earlier call) run after every round;
- its median is compared with the speed of light; one faster than the loosest speed of light by more than the
  measurement margin is REJECTED_RUNTIME (`runtime.faster_than_light`);
- its host intervals are compared with its device intervals: a call whose work finishes long after the end event
  on its stream (work launched on another stream, which the events do not see but the device-wide synchronize
  waits for) is REJECTED_RUNTIME (`runtime.hidden_work`).

Per slot, each side's samples from every round are pooled; speedup = baseline median / candidate median; per task,
the geometric mean over slots. This module never imports torch: it talks to the workers.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.cases import case_seed
from kbx.evaluation.orchestrator.baselines import (
    CANARY,
    BaselineBook,
    KnownBaseline,
    canary_drift,
    reused_round,
    slot_key,
    untimed_baselines,
)
from kbx.evaluation.orchestrator.gpu_gate import GpuGate
from kbx.evaluation.orchestrator.timed_slots import (
    BASELINES,
    TIMING_SEED_OFFSET,
    Performance,
    Slot,
    SlotTiming,
    baseline_description,
    plan_slots,
)
from kbx.evaluation.protocol import Timed, TrustedRequest
from kbx.tasks.spec import Task
from kbx.timing.sol import Peaks, loose_sol_time_s, sol_time_s
from kbx.timing.stats import summarize

FTL_MARGIN = 0.8
"""A candidate is faster than light when its median < FTL_MARGIN × the loosest T_SOL (`loose_sol_time_s`: the
datasheet's limits where the GPU is known, else the measured peaks, which an excellent kernel may beat a little)."""
_MAX_MEASUREMENT_BYTES = 1 << 20

Judge = Callable[[dict[str, Any], Path], str | None]
"""Judges a saved output file for a case dict (workload, params, dtype, seed); returns a failure message or None."""


class PerformanceStage:
    """Drives one candidate worker through the stage: `on_cases_done` starts it once every case has passed, and
    `on_timed` answers each `Timed` report.

    `request(kind, payload)` is the trusted worker's request function, called under `trusted_lock`; `gate` is held
    exclusively from the first command until the stage ends or `close()` is called.
    """

    def __init__(
        self,
        task: Task,
        secret_seed: int,
        request: Callable[[TrustedRequest, dict[str, Any]], Any],
        trusted_lock: threading.Lock,
        gate: GpuGate,
        judge: Judge,
        job_dir: Path,
        settings: TimingSettings | None = None,
        ready: Callable[[], bool] = lambda: True,
        book: BaselineBook | None = None,
    ) -> None:
        self._task = task
        self._secret_seed = secret_seed
        self._request = request
        self._trusted_lock = trusted_lock
        self._gate = gate
        self._judge = judge
        self._job_dir = job_dir
        self._ready = ready
        self.settings = settings or TimingSettings()
        slots = plan_slots(task, secret_seed, self.settings.input_sets)
        self.result = Performance([SlotTiming(s) for s in slots], self.settings, baseline=baseline_description(task))
        self._steps = [(s, r) for s in self.result.slots for r in range(self.settings.rounds)]
        self._book = book
        self._known: dict[int, KnownBaseline] = {}
        """Slots whose baselines the book holds: each round times only the canary until it drifts."""
        self._canaries: dict[int, list[float]] = {}
        """Canary samples of the slots timed in full, for the book."""
        self._next = 0
        self._worked: set[int] = set()
        """Slots whose FLOPs and bytes are known (from `prepare`, or asked for when the slot is first timed)."""
        self._untimed: dict[int, dict[str, str]] = {}
        """Slot -> baseline side -> why `prepare` found that baseline failing or computing something else, so that it
        is not timed."""
        self._recall_known()
        self._holding = False
        self._closed = False
        self._lifecycle = threading.Lock()
        """Guards `_holding` and `_closed`: the worker's reader thread runs the stage, the evaluating thread may
        close it once the worker has ended, possibly while the reader still waits for the GPU."""
        self._started = 0.0
        self._sent_at = time.monotonic()
        self._peaks: Peaks | None = None

    def _recall_known(self) -> None:
        """Take what the book knows of each slot: its work, and whether its compiled baseline is timed."""
        for timing in self.result.slots if self._book is not None else []:
            known = self._book.get(self._key(timing))
            if known is not None:
                self._known[timing.slot.index] = known
                timing.flops, timing.bytes = known.flops, known.bytes
                self._worked.add(timing.slot.index)
                if known.untimed:
                    self._untimed[timing.slot.index] = dict(known.untimed)

    def on_cases_done(self) -> str:
        """The reply to the last case's verdict: the first timing command, or "stop"."""
        if self._next != 0 or self._holding or not self._steps or not self._ready():
            return self._finish()  # repeated, or a candidate that has not passed every case
        if not self._begin():
            return "stop"
        return self._next_or_finish()

    def on_timed(self, event: Timed) -> str:
        """The reply to a timing report: the next command, or "stop"."""
        self._spend("candidate", self._sent_at)
        if not self._holding or not self._record(event):
            return self._finish()
        return self._next_or_finish()

    def _next_or_finish(self) -> str:
        return self._finish() if self._next >= len(self._steps) else self._command()

    def prepare(self) -> None:
        """Before the stage, while the GPU is still shared with other candidates' cases: the trusted worker counts
        each slot's work and compiles each slot's baseline (its first call), so the exclusive stage does not."""
        unknown = [timing for timing in self.result.slots if timing.slot.index not in self._worked]
        if not unknown or self._holding or not self._steps or not self._ready():
            return
        answers = self._trusted("prepare", {
            "task_dir": str(self._task.path),
            "slots": [{"case": self._case(timing.slot), "seeds": list(timing.slot.seeds)} for timing in unknown],
        })
        for timing, answer in zip(unknown, answers):
            timing.flops, timing.bytes = int(answer["flops"]), int(answer["bytes"])
            self._worked.add(timing.slot.index)
            untimed = untimed_baselines(answer)
            if untimed:
                self._untimed[timing.slot.index] = untimed

    def close(self) -> None:
        """Release the GPU if the worker ended the stage early (crash, timeout); a wait for the GPU still under way
        gives it straight back when it ends."""
        with self._lifecycle:
            self._closed = True
        self._finish()

    def _begin(self) -> bool:
        """Take the GPU and start; False when the stage was closed while it waited (the GPU is given back)."""
        waited = self._gate.acquire_exclusive()
        with self._lifecycle:
            if self._closed:
                self._gate.release_exclusive()
                return False
            self._holding = True
        self.result.lock_wait_s = waited
        self._started = time.monotonic()
        self.result.started_at = time.time()
        self._peaks = Peaks.from_json(self._trusted("peaks", {}))
        self.result.environment = {
            "clocks_start": self._trusted("clocks", {}),
            "peaks": self._peaks.to_json(),
            "method": "DESIGN §6: L2 flush, CUDA events around one call + device sync, rotated input sets, "
            "adaptive median CI; eager, compile and candidate alternate per round under one GPU lock",
        }
        return True

    def _command(self) -> str:
        timing, round_index = self._steps[self._next]
        slot = timing.slot
        payload = self._slot_payload(slot)
        if round_index == 0:
            if slot.index not in self._worked:
                work = self._trusted("work", payload)
                timing.flops, timing.bytes = int(work["flops"]), int(work["bytes"])
                self._worked.add(slot.index)
            assert self._peaks is not None
            tf32 = bool(self._task.contract.tf32)
            timing.sol_s = sol_time_s(timing.flops, timing.bytes, self._peaks, slot.dtype, tf32=tf32)
            timing.loose_sol_s = loose_sol_time_s(timing.flops, timing.bytes, self._peaks)
        self._baselines(timing, round_index, payload)
        recheck = self._recheck_seed() if self._rechecks() else None
        self._sent_at = time.monotonic()
        return json.dumps({"cmd": "time", "slot": self._next, **self._case(slot), "seeds": list(slot.seeds),
                           "recheck_seed": recheck, "settings": self.settings.measure_kwargs(),
                           "input_ranges": {name: list(r) for name, r in self._task.input_ranges.items()}})

    def _baselines(self, timing: SlotTiming, round_index: int, payload: dict[str, Any]) -> None:
        """This round's baselines: the book's, while the canary stays within its noise; else timed in full (and,
        where a book is kept, a canary beside them for the next candidates)."""
        index = timing.slot.index
        known = self._known.get(index)
        if known is not None:
            reading = canary_drift(known.canary_ms, self._canary(timing))
            timing.canaries.append(reading.to_json() if reading else {"error": "the canary could not be timed"})
            if reading is not None and reading.steady:
                for side, measurement in reused_round(known, round_index).items():
                    timing.rounds[side].append(measurement)
                return
            del self._known[index]  # the GPU's state moved: from this round on, this slot is timed in full
            self._book.forget(self._key(timing))  # type: ignore[union-attr]  # known implies a book
        for baseline in BASELINES:
            if baseline in self._untimed.get(index, {}):
                timing.rounds[baseline].append({"error": self._untimed[index][baseline]})
                continue
            request = {**payload, "settings": self.settings.measure_kwargs(), "kind": baseline}
            timing.rounds[baseline].append(self._trusted("baseline", request))
        if self._book is not None and self._book.reuse:
            self._canaries.setdefault(index, []).extend(self._canary(timing).get("samples_ms") or [])
            self._remember(timing, round_index)

    def _canary(self, timing: SlotTiming) -> dict[str, Any]:
        """A short timing of the eager reference, just before the candidate's measurement."""
        return self._trusted("baseline", {**self._slot_payload(timing.slot), "settings": CANARY, "kind": "eager"})

    def _remember(self, timing: SlotTiming, round_index: int) -> None:
        """After the last round of a slot timed in full from its first round, give the book what it measured."""
        fresh = [m for m in timing.rounds["eager"] if not m.get("reused")]
        if round_index != self.settings.rounds - 1 or len(fresh) != self.settings.rounds:
            return
        assert self._book is not None
        self._book.put(self._key(timing), KnownBaseline(
            rounds={side: list(timing.rounds[side]) for side in BASELINES},
            canary_ms=list(self._canaries.get(timing.slot.index, [])), flops=timing.flops, bytes=timing.bytes,
            untimed=self._untimed.get(timing.slot.index),
        ))

    def _key(self, timing: SlotTiming) -> tuple[Any, ...]:
        return slot_key(self._task, timing.slot, self.settings)

    def _rechecks(self) -> bool:
        """Whether step `_next` is its slot's re-checked round (one per slot, drawn from the secret seed)."""
        timing, round_index = self._steps[self._next]
        slot = timing.slot
        draw = case_seed(self._secret_seed ^ TIMING_SEED_OFFSET, self._task.name, f"{slot.workload.name}#recheck",
                         slot.dtype)
        return round_index == draw % self.settings.rounds

    def _recheck_seed(self) -> int:
        """Seed of the values written into the timed inputs for the re-check after step `_next`."""
        timing, round_index = self._steps[self._next]
        slot = timing.slot
        return case_seed(self._secret_seed ^ TIMING_SEED_OFFSET, self._task.name,
                         f"{slot.workload.name}#recheck{round_index}", slot.dtype)

    def _record(self, event: Timed) -> bool:
        """Take in the candidate's measurement of the current step; False (with a violation) to stop."""
        timing, _ = self._steps[self._next]
        slot = timing.slot
        if event.slot != self._next:
            self.result.violation = "runtime.forged_channel: a timing report for a step that was not asked for"
            return False
        measurement = _read_measurement(self._job_dir / Path(event.measurement).name)
        output = self._job_dir / Path(event.file).name if event.file is not None else None
        try:
            if measurement is None:
                self.result.violation = "runtime.forged_channel: the timing report has no readable measurement"
                return False
            if (output is None) == self._rechecks():
                self.result.violation = (
                    "runtime.forged_channel: a timing report "
                    + ("without the re-checked output that was asked for" if output is None else
                       "with an output nobody asked for")
                )
                return False
            judging = time.monotonic()
            failure = None if output is None else self._judge(
                {**self._case(slot), "seed": self._recheck_seed(), "file": output.name}, output
            )
            if output is not None:
                self._spend("recheck", judging)
        finally:
            if output is not None:
                output.unlink(missing_ok=True)
        if failure is not None:
            self.result.violation = (
                f"runtime.timing_recheck: after timing {slot.label}, new values in the same input tensors gave a "
                f"wrong output: {failure}"
            )
            return False
        timing.rounds["candidate"].append(measurement)
        median_s = float(measurement["summary"]["median"]) / 1e3
        if timing.loose_sol_s is not None and median_s < FTL_MARGIN * timing.loose_sol_s:
            self.result.violation = (
                f"runtime.faster_than_light: {slot.label} measured {median_s * 1e6:.2f} us, but moving "
                f"{timing.bytes} bytes and doing {timing.flops} FLOPs takes at least {timing.loose_sol_s * 1e6:.2f} us "
                "on this GPU: the timed call cannot have done the work"
            )
            return False
        hidden = hidden_work(measurement)
        if hidden:
            self.result.violation = f"runtime.hidden_work: {slot.label}: {hidden}"
            return False
        self._next += 1
        return True

    def _finish(self) -> str:
        with self._lifecycle:
            holding, self._holding = self._holding, False
        if holding:
            try:
                self.result.environment["clocks_end"] = self._trusted("clocks", {})
                self._trusted("release", {})
            finally:
                self.result.wall_s = time.monotonic() - self._started
                self._gate.release_exclusive()
        return "stop"

    def _trusted(self, kind: str, payload: dict[str, Any]) -> Any:
        with self._trusted_lock:
            asked = time.monotonic()
            try:
                return self._request(kind, payload)
            finally:
                self._spend(kind, asked)

    def _spend(self, what: str, since: float) -> None:
        self.result.spent_s[what] = self.result.spent_s.get(what, 0.0) + time.monotonic() - since

    def _case(self, slot: Slot) -> dict[str, Any]:
        return {"workload": slot.workload.name, "role": slot.workload.role, "dtype": slot.dtype}

    def _slot_payload(self, slot: Slot) -> dict[str, Any]:
        return {"task_dir": str(self._task.path), "case": self._case(slot), "seeds": list(slot.seeds)}


def _read_measurement(path: Path) -> dict[str, Any] | None:
    """A measurement file the candidate worker wrote: JSON with samples and a summary, or None."""
    try:
        if path.stat().st_size > _MAX_MEASUREMENT_BYTES:
            return None
        data = json.loads(path.read_text())
        samples = [float(s) for s in data["samples_ms"]]
        host = [float(s) for s in data["host_ms"]]
        summary = summarize(samples)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    finally:
        path.unlink(missing_ok=True)
    if not samples or any(not s > 0 for s in samples) or len(host) != len(samples):
        return None
    # The summary is recomputed here from the raw samples: the worker's own is not trusted.
    return {**{k: data[k] for k in ("converged", "stop_reason", "warmup_calls", "wall_s") if k in data},
            "samples_ms": samples, "host_ms": host, "summary": summary.to_json()}


HIDDEN_WORK_MS = 0.05
HIDDEN_WORK_FRACTION = 0.5
"""A call's median host interval may exceed its median device interval by this much (launch and synchronize
overhead, measured at ~10-20 us on an H100) and this fraction of the device interval before work is taken as
hidden from the events."""


def hidden_work(measurement: dict[str, Any]) -> str:
    """Why the host intervals say the call did work its device interval does not show; empty when they agree.

    The host interval runs from the start event (on an idle device) to the end of the device-wide synchronize, so
    it contains the device interval plus launch and synchronisation overhead, and also any work on streams the
    events were not recorded on."""
    device = sorted(measurement["samples_ms"])[len(measurement["samples_ms"]) // 2]
    host = sorted(measurement["host_ms"])[len(measurement["host_ms"]) // 2]
    if host - device <= HIDDEN_WORK_MS + HIDDEN_WORK_FRACTION * device:
        return ""
    return (
        f"the median call took {host:.3f} ms on the host (from the start event to the end of a device-wide "
        f"synchronize) but only {device:.3f} ms between its CUDA events: its work runs outside the timed stream"
    )

