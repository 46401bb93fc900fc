"""The candidate worker's side of the performance stage (GPU only): timing one slot, re-checking its output on new
values in the same tensors, and handing a call's outputs over for judging (`Handover`, used by correctness cases
too). Runs in the candidate's process, built before the candidate is imported."""

from __future__ import annotations

import collections
import contextlib
import json
import weakref
from pathlib import Path
from typing import Any


def traced(tracer: Any, inputs: dict[str, Any]) -> Any:
    """The launch trace around one call, or nothing to do on the CPU."""
    return contextlib.nullcontext() if tracer is None else tracer.tracing(inputs)


_IDLE_BYTES = 1 << 30
"""Cached but unused GPU memory above which a case gives it back before it is judged."""


class Handover:
    """Saves a call's outputs for the trusted worker: small ones in the job's file, large GPU ones shared as CUDA
    descriptors (`kbx.evaluation.cuda_share`) sent ahead of the report. Each shared copy lives until the next
    command arrives (`release`): the orchestrator has the trusted worker copy it out before it answers the report."""

    def __init__(self, channel: Any, device: str) -> None:
        self.channel, self.device = channel, device
        self._exports: list[Any] = []

    def save(self, result: Any, path: Path) -> None:
        import torch

        from kbx.evaluation.outputs import pack_outputs

        self.release()
        share = self._share if self.device == "cuda" else None
        torch.save({"outputs": pack_outputs(result, share)}, path)
        self.channel.send_descriptors([export.fd for export in self._exports])

    def _share(self, tensor: Any) -> dict[str, Any]:
        from kbx.evaluation.cuda_share import Export

        export = Export(tensor)
        self._exports.append(export)
        return export.block.to_json()

    def release(self) -> None:
        for export in self._exports:
            export.close()
        self._exports.clear()

    def give_back_cached(self) -> None:
        """Return this process's cached but unused GPU memory to the driver, now that the trusted worker judges on the
        same GPU. At 2^31 elements the temporaries of a task's inputs leave tens of GiB cached here: judging the relu
        solution's 2^31 bench, the trusted worker's 8 GiB request found 0.4 GiB free of an H200's 140 (2026-11-27)."""
        import torch

        if self.device == "cuda" and torch.cuda.memory_reserved() - torch.cuda.memory_allocated() > _IDLE_BYTES:
            torch.cuda.empty_cache()


def refill(target: dict[str, Any], fresh: dict[str, Any]) -> dict[str, Any]:
    """Write the values of `fresh` into the tensors of `target` in place, keeping their memory and version
    counters: a call on the result looks, by pointer, shape and version, exactly like the call before it. What is
    not a tensor (a number, a KernelBench case's module built from the fresh seed) is taken from `fresh`: the
    trusted worker judges the call against `fresh`'s values."""
    import torch

    for name, value in fresh.items():
        old = target.get(name)
        if isinstance(value, torch.Tensor) and isinstance(old, torch.Tensor) and old.shape == value.shape:
            try:
                old.data.copy_(value)
            except RuntimeError:  # elements sharing memory (an expanded input): it cannot be written in place
                target[name] = value
        elif not isinstance(value, torch.Tensor):
            target[name] = value
    return target


class Timer:
    """Times the candidate on one slot of the performance stage (GPU only). In the round the orchestrator asks for
    it (`recheck_seed`), it then calls the candidate once more on new values written into the same input tensors it
    was just timed on (same pointers, shapes and version counters): a candidate that stops computing once timed, or
    answers from a cache keyed on its inputs' identity, returns a wrong output there, which the trusted worker
    judges. Every round, the guards check the timed calls (each launched a kernel; no output reused)."""

    def __init__(self, device: str) -> None:
        self.ready = device == "cuda"
        if self.ready:
            from kbx.timing.measure import CudaClock, L2Flusher
            from kbx.timing.refresh import ValueRefresher

            self._clock = CudaClock()
            self._flusher = L2Flusher()
            self._refresh = ValueRefresher("cuda")

    def time_slot(
        self, entry: Any, guards: Any, tracer: Any, sets: Any, workload: Any, command: dict[str, Any], job_dir: Path,
        handover: Handover,
    ) -> dict[str, Any] | Any:
        """The `timed` event's fields, or the RuntimeViolation the guards found."""
        import torch

        from kbx.timing.measure import time_call

        if not self.ready:
            raise RuntimeError("the performance stage needs a CUDA device")
        inputs = sets.get(workload, command["dtype"], command["seeds"])
        last: dict[str, Any] = {}
        recent: collections.deque[Any] = collections.deque(maxlen=len(inputs) + 1)

        def call(**kwargs: Any) -> None:
            output = last["output"] = entry(**kwargs)
            last["inputs"] = kwargs
            recent.append(weakref.ref(output) if isinstance(output, torch.Tensor) else None)

        self._refresh.keep_within(command.get("input_ranges", {}))
        guards.before_call()
        measurement = time_call(
            call, inputs, clock=self._clock, flusher=self._flusher, refresh=self._refresh, **command["settings"]
        )
        torch.cuda.synchronize()
        calls = measurement.warmup_calls + len(measurement.samples_ms)
        slot = command["slot"]
        report: dict[str, Any] = {"slot": slot}
        if command.get("recheck_seed") is not None:
            used = next(s for s in inputs if all(last["inputs"][k] is v for k, v in s.items()))
            generator = torch.Generator(device="cuda").manual_seed(command["recheck_seed"])
            fresh = refill(used, sets.make(workload, command["dtype"], generator))
            sets.forget()  # the refilled set no longer holds its seed's values
            del last["output"]
            with traced(tracer, fresh):  # after the measurement: tracing slows launches down
                call(**fresh)
            report["launches"] = None if tracer is None else tracer.last
            calls += 1
        earlier = [t for ref in list(recent)[:-1] if ref is not None and (t := ref()) is not None]
        violation = guards.after_timing(calls, last["output"], last["inputs"], earlier)
        if violation is not None:
            return violation
        if command.get("recheck_seed") is not None:
            output_file = job_dir / f"timed_{slot}.pt"
            handover.save(last["output"], output_file)
            report["file"] = output_file.name
        measurement_file = job_dir / f"timed_{slot}.json"
        measurement_file.write_text(json.dumps(measurement.to_json()))
        return {**report, "measurement": measurement_file.name}
