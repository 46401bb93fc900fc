"""The trusted worker's requests for the performance stage: the device's peaks and clocks, a slot's work, the
baselines compiled and checked before the stage (`prepare`) and timed during it (`baseline`). The eager baseline
is the task's `baseline` where it has one, else its reference (`kbx.tasks.baseline`). A mixin of the
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
        work (as `work`) and the first call of each baseline that is not the reference itself (the compiled one,
        which compiles it, and the task's own `baseline` where it has one), whose outputs are judged against the
        reference's by the task's contract. Asked for while the GPU is still shared, so the exclusive stage spends
        its time measuring. A baseline that fails (`<side>_error`: "compile_error", "eager_error") or computes
        something else (`<side>_differs`: e.g. a precision flag the reference sets that the compiled code does not
        honour) is not timed: a speedup over it would not compare like with like."""
        from kbx.evaluation.outputs import output_items
        from kbx.evaluation.trusted.bases import bases_if_any

        code = self._task_code(Path(task_dir))
        sides = ("eager", "compile") if code.baseline is not None else ("compile",)
        results = []
        for slot in slots:
            inputs = self._one_set(code, slot["case"], slot["seeds"][0])
            expected = self._eager_outputs(code, inputs, f"{slot['case']['workload']}/{slot['case']['dtype']}")
            result: dict[str, Any] = self._work_of(code, inputs, expected)
            workload = workload_of(code.task, slot["case"])
            bases = (bases_if_any(code, inputs, output_items(expected), slot["case"]["dtype"], workload)
                     if code.task.contract.against_truth else None)
            for side in sides:
                result.update(self._first_call(code, slot["case"], side, inputs, expected, bases))
            del inputs, expected, bases
            results.append(result)
        self._free_cached()
        return results

    def _first_call(self, code: Any, case: dict[str, Any], side: str, inputs: dict[str, Any], expected: Any,
                    bases: list[Any] | None) -> dict[str, str]:
        """One baseline's first call on `inputs`, judged against the reference's outputs `expected` (and their
        bases, for a contract judged against the float64 truth): {} when it passes, else {"<side>_error": ...} or
        {"<side>_differs": ...}."""
        import torch

        from kbx.evaluation.outputs import output_items
        from kbx.evaluation.trusted.compare import TASK_CHECKED, judge
        from kbx.tasks.baseline import baseline_precision

        try:
            with torch.no_grad(), baseline_precision(code.task.contract):
                got = output_items(self._timed_function(code, case, side)(**inputs))
            checked = inputs if code.task.contract.kind in TASK_CHECKED else None
            verdicts = judge(got, output_items(expected), checked, code, code.task.contract, case["dtype"],
                             workload_of(code.task, case), bases)
        except Exception as exc:  # reported as a baseline error; the stage does not time it
            return {f"{side}_error": f"{type(exc).__name__}: {str(exc)[:300]}"}
        failed = next((c for c in verdicts if c.status.value != "PASSED"), None)
        return {} if failed is None else {f"{side}_differs": f"{failed.status.value}: {failed.message}"[:400]}

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
        """One measurement of the eager or compiled baseline on a slot's rotated input sets, or {"error": ...}. Both
        run with the precision the task's contract allows candidates (`kbx.tasks.baseline.baseline_precision`)."""
        import torch

        from kbx.tasks.baseline import baseline_precision
        from kbx.timing.measure import time_call

        code = self._task_code(Path(task_dir))
        sets = self._timing_sets(code, case, seeds)
        try:
            fn = self._timed_function(code, case, kind)
            with torch.no_grad(), baseline_precision(code.task.contract):
                return time_call(
                    fn, sets, clock=self._clock, flusher=self._flusher, refresh=self._refresh, **settings
                ).to_json()
        except Exception as exc:  # a baseline that cannot run is reported, not fatal: the candidate was fine
            return {"error": f"{kind}: {type(exc).__name__}: {str(exc)[:300]}"}

    def _timed_function(self, code: Any, case: dict[str, Any], kind: str) -> Any:
        """The function timed as the `eager` or `compile` baseline of one slot."""
        return code.eager if kind == "eager" else self._compiled(code, case)

    def _compiled(self, code: Any, case: dict[str, Any]) -> Any:
        """`torch.compile` of the eager baseline (the task's `baseline`, else its reference) for one slot, kept for
        the later candidates of the same task version."""
        import torch

        key = (code.task.version, str(case["workload"]), str(case["dtype"]))
        if key not in self._compiled_references:
            self._compiled_references[key] = torch.compile(own_code(code.eager), dynamic=False)
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
