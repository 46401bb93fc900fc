"""The evaluation pipeline: static -> build/call -> correctness (DESIGN §5).

`Evaluator` holds the trusted workers of a device (`kbx.evaluation.orchestrator.trusted_pool`: those that judge, and
the performance stages') and evaluates candidates, each in a fresh candidate worker. It runs in the orchestrator
process and never imports candidate code, torch or CUDA itself.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from kbx import kernelbench_rule as rule
from kbx.candidates.source import Candidate
from kbx.candidates.static import check_static
from kbx.errors import KbxError, ReferenceFailed
from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.candidate.audit import JOB_PREFIX
from kbx.evaluation.cases import DEVICE_ROLES, Case, new_secret_seed, plan_cases, reproducibility_cases
from kbx.evaluation.confinement.enter import default_hidden, for_this_process, unavailable
from kbx.evaluation.confinement.libc import set_undumpable
from kbx.evaluation.orchestrator import kernelbench, triton_host
from kbx.evaluation.orchestrator.baselines import BaselineBook
from kbx.evaluation.orchestrator.case_judge import CaseJudge, case_result
from kbx.evaluation.orchestrator.conversation import Conversation, refill_case
from kbx.evaluation.orchestrator.extensions import ExtensionBuilder, Prepared
from kbx.evaluation.orchestrator.failures import call_failure, unjudged, unreadable
from kbx.evaluation.orchestrator.gpu_gate import GpuGate, gpu_gate, memory_gate
from kbx.evaluation.orchestrator.handover import Inbox
from kbx.evaluation.orchestrator.memory_budget import ADMISSION, evaluation_bytes, memory_budget
from kbx.evaluation.orchestrator.performance import PerformanceStage
from kbx.evaluation.orchestrator.published_only import bench_only, noted, shrinking_breaks
from kbx.evaluation.orchestrator.sandbox import Limits, WorkerRun, run_worker, scratch_root, start_zygote
from kbx.evaluation.orchestrator.short_of_memory import alone_if_short, left_out_note
from kbx.evaluation.orchestrator.timed_slots import Performance
from kbx.evaluation.orchestrator.trusted_client import TrustedWorker
from kbx.evaluation.orchestrator.trusted_pool import JUDGES, Served, TrustedPool
from kbx.evaluation.protocol import CaseStart
from kbx.evaluation.result import Evaluation
from kbx.evaluation.verdict import Comparison
from kbx.kernelbench_rule import RuleVerdict
from kbx.status import Status
from kbx.tasks.spec import Task

Part = Literal["all", "correctness", "timing"]
"""Which part of an evaluation to run: all of it, or one of the two halves a timed run splits it into so that no
performance stage waits for another candidate's correctness cases (`kbx.running.runner`): `correctness` (every case but
the bench ones, the refill case included; no timing) and `timing` (the bench cases, then the performance stage).
`combine` joins the halves into the evaluation `all` would have given."""

DEFAULT_TIMEOUT_S = {"cpu": 600.0, "cuda": 300.0}
"""Wall-clock limit per candidate: the interpreter is slow; on a GPU most of it is compilation."""


class Evaluator:
    """Evaluates candidates on one device; thread-safe, so several candidate workers can run at once."""

    def __init__(
        self,
        device: str = "auto",
        limits: Limits | None = None,
        secret_seed: int | None = None,
        timing: TimingSettings | None = TimingSettings(),  # noqa: B008 - frozen, so one shared default is safe
        gpu: str | None = None,
        contract: str | None = None,
        reuse: bool = True,
    ) -> None:
        """`timing`: how the performance stage measures on a GPU; None skips the stage (correctness only).
        `gpu`: pin the trusted worker and every candidate worker to this one GPU (a `CUDA_VISIBLE_DEVICES`
        entry); None uses the devices the environment makes visible. `contract`: another harness's rule to judge
        beside kbx's verdict (`kernelbench`: `kbx.kernelbench_rule`, for KernelBench problems); None
        judges kbx's alone. `reuse`: whether a task may have later candidates here, for whom the trusted workers
        keep its reference outputs and the performance stage its baselines (`BaselineBook`); False (a run with one
        candidate per task) keeps neither, so they hold no GPU memory and cost no canaries.

        Raises:
            KbxError: an unknown contract, or a machine that cannot confine candidates.
        """
        if contract is not None and contract not in rule.CONTRACTS:
            raise KbxError(f"unknown contract {contract!r}: choose from {', '.join(rule.CONTRACTS)}")
        self.contract = contract
        self.gpu = gpu
        set_undumpable()  # the orchestrator: no candidate may read its memory, whatever UID it runs as
        limits = limits or Limits()
        self.confinement = for_this_process(limits.confined, default_hidden())
        why = unavailable(self.confinement) if self.confinement.enabled else None
        if why is not None:
            raise KbxError(f"this machine cannot confine candidates ({why}); --unconfined runs them without it")
        judges = JUDGES["cpu" if device == "cpu" else "cuda"]
        self._pool = TrustedPool(lambda: TrustedWorker(device, gpu, judges), judges)
        self.device = self._pool.first.worker.device
        self._pool.judges = JUDGES[self.device]  # "auto" is known now
        self._zygote = start_zygote(self.device, gpu)
        self._triton_host = triton_host.for_device(self.device)
        self.environment = {**self._pool.first.worker.environment, "confinement": self.confinement.describe()}
        self.limits = limits if limits.timeout_s else replace(limits, timeout_s=DEFAULT_TIMEOUT_S[self.device])
        self.secret_seed = new_secret_seed() if secret_seed is None else secret_seed
        self.extensions = ExtensionBuilder(self.device, self.environment, self.limits, self.confinement,
                                           self._zygote, gpu)
        """Builds and caches CUDA candidates' extensions (`kbx.evaluation.orchestrator.extensions`)."""
        self.timing = timing
        self.reuse = reuse
        self._baselines = BaselineBook(reuse=timing is not None and timing.reuse_baselines and reuse)
        self._footprints: dict[str, dict[str, int]] = {}
        """Per task version, the bytes of each bench workload's inputs and outputs (`trusted.footprint`)."""
        self._shrinking_breaks: dict[str, str | None] = {}
        """Per task version, why its shrunk workloads break its reference (`published_only`), None where not."""

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._pool.close()
        if self._zygote is not None:
            self._zygote.close()
        if self._triton_host is not None:
            self._triton_host.close()

    def evaluate(self, task: Task, candidate: Candidate, part: Part = "all") -> Evaluation:
        """Evaluate one candidate on one task (or one `part` of that). Candidate failures come back as statuses,
        never raised.

        Raises:
            NotJudged: this machine cannot judge it (a CUDA candidate that compiled, where there is no GPU).
        """
        start = time.monotonic()
        task, left_out = task.fit_to_gpu(self.environment.get("memory_bytes") if self.device == "cuda" else None)
        base = self._base(task, candidate)
        verdict = check_static(
            candidate.code, task.entry_point, task.signature, candidate.problem, task.forbidden, task.module,
            candidate.policy,
        )
        static_s = time.monotonic() - start
        if verdict.status is not None:
            return replace(
                base, status=verdict.status, message=f"{verdict.check}: {verdict.message}",
                elapsed_s=static_s, phases={"static": static_s},
                kernelbench=self._rule(task, part, lambda: kernelbench.after_static(verdict)),
            )
        assert candidate.code is not None
        prepared = self.extensions.prepare(task, verdict.extensions)  # a CUDA candidate's builds (none for Triton)
        if prepared.failure is not None:
            status, message, _ = prepared.failure
            return replace(_build_failed(base, prepared, time.monotonic() - start, static_s),
                           kernelbench=self._rule(task, part, lambda: kernelbench.after_build(status, message)))
        prepared.require(self.device)
        memory = memory_gate(self.gpu) if self.device == "cuda" else None  # beside others: see short_of_memory

        def run() -> Evaluation:
            with self._pool.judging() as judging:
                return self._run(task, candidate, part, base, prepared, (start, static_s), judging)

        with self._admitted(task, part) as waited:
            evaluation = alone_if_short(memory, run, self._pool.forget_everywhere)
        phases = {**evaluation.phases, **({ADMISSION: round(waited, 3)} if waited >= 0.01 else {})}
        return replace(evaluation, message=left_out_note(evaluation.message, left_out, self.environment),
                       phases=phases)

    def _admitted(self, task: Task, part: Part) -> AbstractContextManager[float]:
        """Hold this GPU's memory for a part that runs bench workloads (`memory_budget`), yielding the seconds
        waited; nothing to hold on a CPU, for the correctness part, or where no bench workload could be sized."""
        total = int(self.environment.get("memory_bytes") or 0)
        if self.device != "cuda" or part == "correctness" or not total:
            return nullcontext(0.0)
        if task.version not in self._footprints:
            try:
                answer = self._pool.first.request("footprint", {"task_dir": str(task.path)})
            except (KbxError, RuntimeError):  # unknown: the run alone still catches a shortage
                answer = {}
            self._footprints[task.version] = {str(k): int(v) for k, v in answer.items()}
        nbytes = evaluation_bytes(self._footprints[task.version], tuple(w.name for w in task.workloads_for(("bench",))))
        return memory_budget(self.gpu, total).hold(nbytes)

    def _run(self, task: Task, candidate: Candidate, part: Part, base: Evaluation, prepared: Prepared,
             started: tuple[float, float], judging: Served) -> Evaluation:
        """The candidate worker's run of a candidate past the static stage and its builds, judged case by case (by
        `judging`), timed where it passed, then KernelBench's rule where asked; `started`: (start time, static
        stage's seconds)."""
        start, static_s = started
        cases, extra = self._plan(task, part)
        if not task.workloads_for(DEVICE_ROLES[self.device]):  # a KernelBench problem with nothing to shrink, on a CPU
            raise ReferenceFailed(f"task {task.name} has no workload the {self.device} can run (its sizes are "
                                  "written where they cannot be shrunk: only a GPU runs it)")
        inbox = Inbox()
        judge = CaseJudge(task, cases, judging.worker, judging.lock, inbox, keep_references=self.reuse)
        job_dir = Path(tempfile.mkdtemp(prefix=JOB_PREFIX, dir=scratch_root()))
        gate = self._gate() if part != "correctness" else None
        stage = self._performance_stage(task, job_dir, judge.passed_every_case, gate, inbox)
        conversation = Conversation(cases, judge, job_dir, stage, extra.index if extra else None, gate,
                                    own_kernels=bool(prepared.entries),
                                    watched=candidate.policy.own_kernels_required)
        try:
            built = _job_extra(candidate, prepared, job_dir)
            run = run_worker(
                task.path, candidate.code, self.device, self.limits, job_dir, conversation.on_event, self.gpu,
                self.confinement, self._zygote, inbox, built, self._triton_host,
            )
        finally:
            if stage is not None:
                stage.close()
            conversation.close()
            inbox.close()
            shutil.rmtree(job_dir, ignore_errors=True)
        if conversation.rejected:
            evaluation = replace(
                base, stage="call", status=Status.REJECTED_RUNTIME, message=conversation.rejected,
                worker_output=run.output,
            )
        else:
            evaluation = self._judge(cases, run, judge.judged, replace(base, stage="call"))
            self._blame_the_task(task, evaluation, run, cases, judging)
        if stage is not None and evaluation.status is Status.PASSED:
            evaluation = _with_performance(evaluation, stage.result)
        phases = {"static": static_s, **({"build": prepared.build_s} if prepared.entries else {}),
                  **conversation.phases}
        ruled = time.monotonic()
        judged = self._rule(task, part, lambda: self._judge_rule(task, candidate, prepared, judging))
        if judged is not None:
            phases["kernelbench"] = time.monotonic() - ruled
        why = self._shrinking_breaks.get(task.version)
        message = evaluation.message if why is None else noted(evaluation.message, why)
        return replace(evaluation, elapsed_s=time.monotonic() - start, phases=phases, kernelbench=judged,
                       message=message)

    def _rule(self, task: Task, part: Part, judged: Callable[[], RuleVerdict]) -> RuleVerdict | None:
        """KernelBench's rule's verdict (`judged()`) where this evaluator records it: `--contract kernelbench`, a
        KernelBench problem, and the part of an evaluation that checks correctness."""
        if self.contract != rule.NAME or task.module is None or part == "timing":
            return None
        return judged()

    def _judge_rule(self, task: Task, candidate: Candidate, prepared: Prepared, judging: Served) -> RuleVerdict:
        """Run KernelBench's rule's trials in a candidate worker of their own
        (`kbx.evaluation.orchestrator.kernelbench`)."""

        def start(job_dir: Path, conversation: Conversation, inbox: Inbox) -> WorkerRun:
            built = _job_extra(candidate, prepared, job_dir)
            return run_worker(task.path, candidate.code or "", self.device, self.limits, job_dir,
                              conversation.on_event, self.gpu, self.confinement, self._zygote, inbox, built,
                              self._triton_host)

        return kernelbench.judge_rule(task, judging.worker, judging.lock, self.limits, self.device, start,
                                      self._gate())

    def _base(self, task: Task, candidate: Candidate) -> Evaluation:
        """The evaluation's fields known before anything runs (status PASSED until a stage says otherwise)."""
        return Evaluation(
            task=task.name, category=task.category, candidate=candidate.name, candidate_hash=candidate.hash,
            status=Status.PASSED, message="", stage="static", device=self.device, task_version=task.version,
            provenance=dict(candidate.provenance), environment=self.environment, policy=candidate.policy,
        )

    def _blame_the_task(self, task: Task, evaluation: Evaluation, run: WorkerRun, cases: list[Case],
                        judging: Served) -> None:
        """Raise `ReferenceFailed` when the candidate failed during a case whose reference fails too: the case
        cannot judge anyone (a KernelBench problem whose own model breaks at its shrunk sizes)."""
        if evaluation.status not in (Status.RUNTIME_ERROR, Status.CRASHED):
            return
        started = [e.index for e in run.events if isinstance(e, CaseStart) and 0 <= e.index < len(cases)]
        if not started:
            return
        judging.request("reference", {"task_dir": str(task.path), "case": cases[started[-1]].to_json()})

    def _plan(self, task: Task, part: Part) -> tuple[list[Case], Case | None]:
        """The cases of one evaluation (or one `part` of it) in order, and its refill case (also the last of
        them), if it has one."""
        cases = plan_cases(task, self.device, self.secret_seed)
        if self._published_only(task, cases) is not None:
            cases = bench_only(cases)  # the correctness part then checks the bench cases too
        if part != "all":
            chosen = [c for c in cases if (c.role == "bench") == (part == "timing")] or (
                cases if part == "correctness" else [])
            cases = [replace(c, index=i) for i, c in enumerate(chosen)]
        if part != "timing":
            cases += reproducibility_cases(task, cases, self.secret_seed)
        extra = refill_case(task, cases, self.secret_seed) if part != "timing" else None
        if extra is not None:
            cases.append(extra)
        return cases, extra

    def _published_only(self, task: Task, cases: list[Case]) -> str | None:
        """Why `task` is judged at its published size alone on this GPU (`published_only`), or None."""
        if self.device != "cuda":
            return None
        if task.version not in self._shrinking_breaks:
            def reference(case: Case) -> object:
                return self._pool.first.request("reference", {"task_dir": str(task.path), "case": case.to_json()})

            self._shrinking_breaks[task.version] = shrinking_breaks(task, cases, reference)
        return self._shrinking_breaks[task.version]

    def _gate(self) -> GpuGate | None:
        """This GPU's gate when this evaluator times candidates: correctness cases then hold it shared and the
        performance stage exclusively, so no candidate's work runs beside another's timed calls. Without timing,
        candidates share the device freely."""
        return gpu_gate(self.gpu) if self.device == "cuda" and self.timing is not None else None

    def _performance_stage(
        self, task: Task, job_dir: Path, ready: Callable[[], bool], gate: GpuGate | None, inbox: Inbox
    ) -> PerformanceStage | None:
        """The performance stage for one candidate, on a GPU with timing on and bench workloads to time."""
        if gate is None or self.timing is None or not task.timed_workloads():
            return None

        timer = self._pool.stages()

        def judge(case: dict[str, Any], path: Path) -> str | None:
            with timer.lock:
                (raw,) = timer.worker.check(task.path, path.parent, [{**case, "index": -1}], inbox.take())
            if "error" in raw:
                return str(raw["error"])
            comparisons = [Comparison.from_json(c) for c in raw["comparisons"]]
            failed = next((c for c in comparisons if c.status is not Status.PASSED), None)
            return None if failed is None else f"{failed.status.value}: {failed.message}"

        return PerformanceStage(
            task, self.secret_seed, timer.worker.request, timer.lock, gate, judge, job_dir, self.timing, ready,
            self._baselines,
        )

    def _judge(
        self, cases: list[Case], run: WorkerRun, judged: dict[int, dict[str, Any]], base: Evaluation
    ) -> Evaluation:
        base = replace(base, worker_output=run.output)
        results = tuple(
            case_result(case, judged[case.index])
            for case in cases
            if case.index in judged and "error" not in judged[case.index]
        )
        failed = next((r for r in results if r.status is not Status.PASSED), None)
        if failed is None:
            failure = (
                unreadable(cases, judged) or call_failure(run, cases, self.limits) or unjudged(cases, judged)
            )
            if failure is not None:
                status, message, error = failure
                return replace(base, status=status, message=message, error=error, cases=results)
        if failed is None:
            return replace(base, stage="correctness", cases=results)
        message = f"{failed.workload}/{failed.dtype}: {failed.message}"
        return replace(base, stage="correctness", status=failed.status, message=message, cases=results)


def combine(correctness: Evaluation, timing: Evaluation) -> Evaluation:
    """One evaluation from its two parts: the cases of both, the verdict and timings of the second (which runs only
    when the first passed), the time of both, and the first's KernelBench-rule verdict (judged with it)."""
    phases = dict(correctness.phases)
    for phase, seconds in timing.phases.items():
        phases[phase] = phases.get(phase, 0.0) + seconds
    output = "\n".join(o for o in (correctness.worker_output, timing.worker_output) if o)
    return replace(timing, cases=correctness.cases + timing.cases, elapsed_s=correctness.elapsed_s + timing.elapsed_s,
                   phases=phases, worker_output=output, kernelbench=correctness.kernelbench)


def _job_extra(candidate: Candidate, prepared: Prepared, job_dir: Path) -> dict[str, Any]:
    """What the worker's job spec adds for this candidate: its policy (which of the guards' rules apply,
    `kbx.evaluation.candidate.worker`) and a CUDA candidate's extensions, installed into the job directory."""
    extra: dict[str, Any] = {"policy": candidate.policy.value}
    if prepared.entries:
        extra["extensions"] = prepared.install(job_dir)
    return extra


def _build_failed(base: Evaluation, prepared: Prepared, elapsed_s: float, static_s: float) -> Evaluation:
    """The evaluation of a CUDA candidate whose extensions did not build (COMPILE_ERROR, TIMEOUT, CRASHED)."""
    assert prepared.failure is not None
    status, message, error = prepared.failure
    return replace(base, stage="build", status=status or Status.COMPILE_ERROR, message=message, error=error,
                   worker_output=prepared.output, elapsed_s=elapsed_s,
                   phases={"static": static_s, "build": prepared.build_s})


def _with_performance(evaluation: Evaluation, performance: Performance) -> Evaluation:
    """A passing evaluation with its timings, or REJECTED_RUNTIME when the performance stage caught a trick."""
    if performance.violation:
        return replace(
            evaluation, stage="performance", status=Status.REJECTED_RUNTIME, message=performance.violation,
            performance=performance.to_json(),
        )
    return replace(evaluation, stage="performance", performance=performance.to_json())
