"""The trusted worker's requests for the performance stage: the device's peaks and clocks, a slot's work, the
baselines compiled and checked before the stage (`prepare`) and timed during it (`baseline`). A mixin of the
worker's state (`kbx.evaluation.trusted.worker._State`), which provides `_task_code`, `_eager_outputs`,
`_free_cached` and the device."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any

from kbx.evaluation.cases import workload_of


class TimingRequests:
    """Requests `peaks`, `clocks`, `work`, `prepare` and `baseline` (`kbx.evaluation.protocol.TrustedRequest`)."""

    device: str
    _compiled_references: dict[tuple[str, str, str], Any]
    _sets: Any
    _sets_task: str
    _clock: Any
    _flusher: Any
    _refresh: Any

    def _task_code(self, folder: Path) -> Any:
        raise NotImplementedError

    def _eager_outputs(self, code: Any, inputs: dict[str, Any], where: str = "a bench workload") -> Any:
        raise NotImplementedError

    def _free_cached(self) -> None:
        raise NotImplementedError

    def _bases(
        self, code: Any, inputs: dict[str, Any], outputs: list[Any], dtype: str, workload: Any
    ) -> list[Any] | None:
        raise NotImplementedError

    def peaks(self) -> dict[str, Any]:
        """The device's measured peaks (cached on disk per device fingerprint)."""
        from kbx.timing.peaks import load_or_measure_peaks

        return load_or_measure_peaks().to_json()

    def clocks(self) -> dict[str, Any]:
        from dataclasses import asdict

        from kbx.timing.clocks import read_device_clocks

        return asdict(read_device_clocks())

    def work(self, task_dir: str, case: dict[str, Any], seeds: list[int]) -> dict[str, int]:
        """The work (`kbx.tasks.work.work_of`) of one slot's first input set."""
        code = self._task_code(Path(task_dir))
        return self._work_of(code, self._one_set(code, case, seeds[0]))

    def prepare(self, task_dir: str, slots: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """What a performance stage can do before it has the GPU to itself, for each slot ({"case", "seeds"}): its
        work (as `work`) and the first call of its compiled baseline (the compilation), whose outputs are judged
        against the eager reference's by the task's contract. Asked for while the GPU is still shared, so the
        exclusive stage spends its time measuring. A baseline that fails to compile (`compile_error`) or computes
        something else (`compile_differs`: e.g. a precision flag the reference sets that the compiled code does
        not honour) is not timed: a speedup over it would not compare like with like."""
        import torch

        from kbx.evaluation.outputs import output_items
        from kbx.evaluation.trusted.compare import TASK_CHECKED, judge

        code = self._task_code(Path(task_dir))
        results = []
        for slot in slots:
            inputs = self._one_set(code, slot["case"], slot["seeds"][0])
            eager = self._eager_outputs(code, inputs, f"{slot['case']['workload']}/{slot['case']['dtype']}")
            result: dict[str, Any] = self._work_of(code, inputs, eager)
            try:
                with torch.no_grad():
                    compiled = output_items(self._compiled(code, slot["case"])(**inputs))
                checked = inputs if code.task.contract.kind in TASK_CHECKED else None
                workload = workload_of(code.task, slot["case"])
                bases = (self._bases(code, inputs, output_items(eager), slot["case"]["dtype"], workload)
                         if code.task.contract.against_truth else None)
                verdicts = judge(compiled, output_items(eager), checked, code, code.task.contract,
                                 slot["case"]["dtype"], workload, bases)
                failed = next((c for c in verdicts if c.status.value != "PASSED"), None)
                if failed is not None:
                    result["compile_differs"] = f"{failed.status.value}: {failed.message}"[:400]
            except Exception as exc:  # reported as a baseline error; the stage does not time it
                result["compile_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
            del inputs, eager
            results.append(result)
        self._free_cached()
        return results

    def _work_of(self, code: Any, inputs: dict[str, Any], outputs: Any = None) -> dict[str, Any]:
        from kbx.tasks.work import work_of

        return work_of(code, inputs, self._eager_outputs(code, inputs) if outputs is None else outputs)

    def _one_set(self, code: Any, case: dict[str, Any], seed: int) -> dict[str, Any]:
        """The first of a slot's rotated input sets, drawn alone (as `InputSets` draws it)."""
        import torch

        generator = torch.Generator(device=self.device).manual_seed(seed)
        return code.make_inputs(workload_of(code.task, case), case["dtype"], generator)

    def baseline(
        self, task_dir: str, case: dict[str, Any], seeds: list[int], settings: dict[str, Any], kind: str
    ) -> dict[str, Any]:
        """One measurement of the eager or compiled reference on a slot's rotated input sets, or {"error": ...}."""
        import torch

        from kbx.timing.measure import time_call

        code = self._task_code(Path(task_dir))
        sets = self._timing_sets(code, case, seeds)
        try:
            fn = code.reference if kind == "eager" else self._compiled(code, case)
            with torch.no_grad():
                return time_call(
                    fn, sets, clock=self._clock, flusher=self._flusher, refresh=self._refresh, **settings
                ).to_json()
        except Exception as exc:  # a baseline that cannot run is reported, not fatal: the candidate was fine
            return {"error": f"{kind}: {type(exc).__name__}: {str(exc)[:300]}"}

    def _compiled(self, code: Any, case: dict[str, Any]) -> Any:
        """`torch.compile(reference)` for one slot, kept for the later candidates of the same task version."""
        import torch

        key = (code.task.version, str(case["workload"]), str(case["dtype"]))
        if key not in self._compiled_references:
            self._compiled_references[key] = torch.compile(own_code(code.reference), dynamic=False)
        return self._compiled_references[key]

    def _timing_sets(self, code: Any, case: dict[str, Any], seeds: list[int]) -> list[dict[str, Any]]:
        from kbx.evaluation.bench_inputs import InputSets
        from kbx.timing.measure import CudaClock, L2Flusher
        from kbx.timing.refresh import ValueRefresher

        if self._sets is None or self._sets_task != code.task.version:
            self._sets, self._sets_task = InputSets(code.make_inputs, self.device), code.task.version
        if self._clock is None:
            self._clock, self._flusher, self._refresh = CudaClock(), L2Flusher(), ValueRefresher(self.device)
        self._refresh.keep_within(code.task.input_ranges)
        return self._sets.get(workload_of(code.task, case), case["dtype"], seeds)


def own_code(fn: Any) -> Any:
    """`fn` with a code object of its own. Dynamo keeps compiled entries per code object, with a recompile limit
    (8 by default) past which a new shape silently runs eagerly: one reference compiled for every bench workload and
    dtype of a task would, on its ninth slot, time eager as "compile", and every call would first walk a chain of
    guards for the other slots. A copy per slot has one entry. Non-functions come back as they are."""
    if not isinstance(fn, types.FunctionType):
        return fn
    copy = types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = fn.__qualname__
    return copy
