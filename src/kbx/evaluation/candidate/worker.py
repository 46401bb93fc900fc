"""The candidate worker: a fresh process that imports one candidate and calls it on every case (DESIGN §4).

It is forked by the Evaluator's zygote (`kbx.evaluation.candidate.zygote`), or started as a fresh interpreter by
`kbx.evaluation.orchestrator.sandbox`, with a scrubbed environment, in its own temporary directory, and killed from
outside when it overruns. It regenerates each case's inputs from the seed, calls the candidate,
compares the tensor inputs with copies taken before the call, and saves the outputs for the trusted worker to
judge; it waits for each case to be judged before the next, so at most one case's outputs sit on disk. Reference
outputs never exist here. Progress travels as JSON lines on a dedicated pipe, never on stdout.

Everything imported here must be importable with torch + triton + numpy + the standard library.
"""

from __future__ import annotations

import importlib.util
import json
import os
import resource
import socket
import sys
import traceback
from pathlib import Path
from typing import Any

from kbx.candidates.policy import Policy
from kbx.evaluation import protocol
from kbx.evaluation.candidate.fresh_memory import filled_new_memory
from kbx.evaluation.candidate.timing import Handover, Timer, refill, traced
from kbx.evaluation.candidate.triton_host import note_launcher_signatures, noted_signatures, warm_triton
from kbx.evaluation.confinement.enter import ConfinementSpec, confine, split
from kbx.evaluation.protocol import TIMED

_TRACE_LIMIT = 4000
_DENIED: list[str] = []
"""What the audit hook refused the candidate (`kbx.evaluation.candidate.audit`)."""


class _Channel:
    """JSON lines to the orchestrator on an inherited pipe, its commands on another, and the descriptors of shared
    outputs on a socket beside them (`kbx.evaluation.cuda_share`)."""

    def __init__(self, fd: int, ack_fd: int, handles_fd: int) -> None:
        self._file = os.fdopen(fd, "w", buffering=1)
        self._acks = os.fdopen(ack_fd, "r")
        self._handles = socket.socket(fileno=handles_fd)

    def send(self, event: protocol.Event) -> None:
        self._file.write(protocol.encode(event) + "\n")
        self._file.flush()

    def send_descriptors(self, fds: list[int]) -> None:
        """Hand over the descriptors of one report's shared outputs, before the report itself."""
        if fds:
            socket.send_fds(self._handles, [b"d"], fds)

    def wait_command(self) -> dict[str, Any] | None:
        """The orchestrator's next command, or None when it says stop."""
        line = self._acks.readline().strip()
        if not line or line == "stop":
            return None
        return json.loads(line)


def main(argv: list[str], fds: tuple[int, int, int] | None = None) -> int:
    """Run the job whose spec file is `argv[0]`. `fds`: the channel's, the command pipe's and the descriptor
    socket's descriptors where they are not the spec's (a worker forked by the zygote,
    `kbx.evaluation.candidate.zygote`, received them). In order: confine (`_enter`), build what watches the
    candidate (`_watchers`), import the candidate, then carry out the orchestrator's commands."""
    spec = json.loads(Path(argv[0]).read_text())
    Path(argv[0]).unlink(missing_ok=True)  # nothing in the job directory may tell the candidate about its job
    if "build" in spec:  # a CUDA candidate's build job: the CUDA toolkit must be in the view
        os.environ.setdefault("CUDA_HOME", spec["build"]["cuda_home"])
    entered = _enter(spec, fds)
    if entered is None:
        return 0
    channel, task, code = entered
    device, job_dir = spec["device"], Path(spec["job_dir"])
    if "build" in spec:  # compile the extensions and stop: no candidate code runs in this process
        from kbx.evaluation.candidate.extension_build import build_job

        return build_job(spec["build"], job_dir, channel)
    from kbx.evaluation.candidate import extensions

    served = extensions.install(spec.get("extensions", ()))  # before the guards see torch as it is
    watchers = _watchers(device, job_dir, channel, Policy(spec.get("policy", Policy.KERNEL.value)))
    if watchers is None:
        return 0
    timer, recorder, tracer, tuning, guards = watchers
    extensions.watch(served, tracer, guards)
    from kbx.evaluation.candidate.guards import CANDIDATE_MODULE  # imported before confinement (_enter)

    channel.send(protocol.Started(os.getpid()))
    try:
        entry = _import_candidate(Path(spec["candidate_file"]), CANDIDATE_MODULE, task.entry_point)
    except BaseException as exc:  # candidate failures are data: report and stop
        channel.send(protocol.ImportFailed(**_describe(exc, importing=True)))
        return 0
    violation = guards.after_import()
    if violation is not None:
        channel.send(protocol.ImportFailed("REJECTED_RUNTIME", violation.message(), ""))
        return 0
    channel.send(protocol.Imported())
    call, make_inputs = code.for_candidate(entry)  # a KernelBench task builds the candidate's ModelNew per case
    session = _Session(call, guards, recorder, tracer, tuning, channel, task, make_inputs, device, job_dir)
    while (command := channel.wait_command()) is not None:
        if not session.run(command, timer):
            return 0
    channel.send(protocol.Finished(launchers=noted_signatures()))
    return 0


def _enter(spec: dict[str, Any], fds: tuple[int, int, int] | None) -> tuple[_Channel, Any, Any] | None:
    """Split off the warden, open the channel, limit resources, install the audit hook, import what the session
    needs while kbx's source is still in view, then confine this process (before CUDA initialises: the driver reads
    /proc, which must be this PID namespace's own by then). The channel, the task and its code; None when
    confinement failed (the harness's failure, not the candidate's: reported, and the orchestrator stops the
    run)."""
    confinement = ConfinementSpec.from_json(spec["confinement"])
    split(confinement)  # from here on, this process is PID 1 of its own namespace (the warden waits outside)
    channel = _Channel(*(fds or (spec["channel_fd"], spec["ack_fd"], spec["handles_fd"])))
    _limit_resources(spec["limits"])
    from kbx.evaluation.candidate.audit import install_audit_hook

    install_audit_hook(Path(spec["job_dir"]), _DENIED)
    os.chdir(spec["cwd"])

    import torch

    from kbx.tasks.module import import_task
    from kbx.tasks.registry import task_at

    if spec["device"] == "cpu":
        from kbx.evaluation.candidate.interpreter import install_interpreter_shims

        install_interpreter_shims()
        torch.set_num_threads(1)
    task = task_at(Path(spec["task_dir"]))
    code = import_task(task)
    _import_what_the_session_uses()
    if spec["device"] == "cuda":
        note_launcher_signatures()
    try:
        confine(confinement, spec["job_dir"])
    except OSError as exc:
        channel.send(protocol.ConfinementFailed(f"could not confine itself: {type(exc).__name__}: {exc}"))
        return None
    return channel, task, code


def _watchers(device: str, job_dir: Path, channel: _Channel, policy: Policy
              ) -> tuple[Any, Any, Any, Any, Any] | None:
    """What watches and times the candidate, built before it is imported: the timer (binding the timing
    functions), the torch-work recorder, the launch trace, quick tuning and the guards (watching all of them; under
    `policy` REFERENCE_CODE they do not require the candidate's own kernels). None when the launch trace could not
    start (another profiler holds CUPTI: the harness's failure, reported)."""
    from kbx.evaluation import outputs
    from kbx.evaluation.candidate.guards import Guards
    from kbx.evaluation.candidate.torch_compute import TorchComputeRecorder
    from kbx.timing import refresh

    timer = Timer(device)
    recorder = TorchComputeRecorder()
    try:
        tracer = _launch_tracer(device, job_dir)
    except Exception as exc:
        channel.send(protocol.ConfinementFailed(f"could not start the launch trace: {type(exc).__name__}: {exc}"))
        return None
    tuning = _tuning(device)
    watched = [
        outputs, _Channel, Timer, _Session, Handover, sys.modules[__name__], sys.modules[Timer.__module__],
        refresh.ValueRefresher, TorchComputeRecorder,
    ]
    if tracer is not None:
        watched += [type(tracer), sys.modules[type(tracer).__module__]]
    guards = Guards(device, watched=watched, denied=_DENIED, own_kernels=policy.own_kernels_required)
    return timer, recorder, tracer, tuning, guards


def _launch_tracer(device: str, job_dir: Path) -> Any:
    """The launch trace of every call on a GPU (`kbx.evaluation.candidate.launch_trace`); None on the CPU."""
    if device != "cuda":
        return None
    from kbx.evaluation.candidate.launch_trace import LaunchTracer

    return LaunchTracer(job_dir)


def _tuning(device: str) -> Any:
    """Quick autotuning for correctness cases on a GPU (`kbx.evaluation.candidate.tuning`); None on the CPU."""
    if device != "cuda":
        return None
    from kbx.evaluation.candidate.tuning import Tuning

    return Tuning()


def preload() -> None:
    """Import every module a worker imports, and the parts of torch a dispatch mode imports lazily, without
    initialising CUDA: the zygote calls this once, so the workers it forks start with all of it in place."""
    import kbx.evaluation.candidate.audit
    import kbx.evaluation.candidate.guards
    import kbx.evaluation.candidate.interpreter
    import kbx.evaluation.candidate.torch_compute
    import kbx.tasks.kernelbench.code
    import kbx.tasks.meta
    import kbx.tasks.module
    import kbx.tasks.registry
    import kbx.timing.refresh  # noqa: F401

    _import_what_the_session_uses()
    kbx.evaluation.candidate.torch_compute.import_lazy_parts()
    warm_triton()


def _import_what_the_session_uses() -> None:
    """Import every kbx module the worker imports lazily after confining itself (the watchers, the session): once
    confined, kbx's source is not there to read."""
    import kbx.evaluation.bench_inputs
    import kbx.evaluation.candidate.extension_build
    import kbx.evaluation.candidate.extensions
    import kbx.evaluation.candidate.guards
    import kbx.evaluation.candidate.launch_trace
    import kbx.evaluation.candidate.torch_compute
    import kbx.evaluation.candidate.tuning
    import kbx.evaluation.cases
    import kbx.evaluation.cuda_share
    import kbx.evaluation.outputs
    import kbx.timing.measure
    import kbx.timing.refresh  # noqa: F401


class _Session:
    """Runs the orchestrator's commands on the imported candidate: a correctness case, or a timed slot."""

    def __init__(
        self, entry: Any, guards: Any, recorder: Any, tracer: Any, tuning: Any, channel: _Channel, task: Any,
        make_inputs: Any, device: str, job_dir: Path,
    ) -> None:
        from kbx.evaluation.bench_inputs import InputSets

        self.entry, self.guards, self.channel, self.task = entry, guards, channel, task
        self.recorder, self.tracer, self.tuning = recorder, tracer, tuning
        self.make_inputs, self.device, self.job_dir = make_inputs, device, job_dir
        self.sets = InputSets(make_inputs, device)
        self.handover = Handover(channel, device)
        self._kept: dict[str, Any] | None = None
        """The last case's inputs: a `refill` case writes new values into these same tensors."""

    def run(self, command: dict[str, Any], timer: Timer) -> bool:
        """Carry out one command; False when the worker must stop (a failure was reported)."""
        from kbx.evaluation.cases import workload_of

        self.handover.release()  # a command comes only once the last outputs were judged (and copied out)
        workload = workload_of(self.task, command)
        if command.get("cmd") == "case":
            return self._case(command, workload)
        if self.tuning is not None:
            self.tuning.quick = False
        try:
            timed = timer.time_slot(self.entry, self.guards, self.tracer, self.sets, workload, command, self.job_dir,
                                    self.handover)
        except BaseException as exc:
            self.channel.send(protocol.CaseFailed(TIMED, **_describe(exc, importing=False)))
            return False
        if not isinstance(timed, dict):
            self.channel.send(protocol.CaseFailed(TIMED, "REJECTED_RUNTIME", timed.message(), ""))
            return False
        self.channel.send(protocol.Timed(**timed))
        return True

    def _case(self, case: dict[str, Any], workload: Any) -> bool:
        import torch

        from kbx.evaluation import outputs
        from kbx.evaluation.cases import with_seed_shift
        from kbx.tasks.module import CandidateCodeFailed

        index = case["index"]
        generator = torch.Generator(device=self.device).manual_seed(case["seed"])
        try:
            inputs = with_seed_shift(self.make_inputs(workload, case["dtype"], generator), case)
        except Exception as exc:
            # The candidate's own code (a KernelBench ModelNew's constructor) or the task's: the orchestrator then
            # asks the trusted worker whether the case can be made at all, and blames the task if it cannot.
            described = _describe(exc, importing=False)
            if described["status"] == "RUNTIME_ERROR":
                made = "" if isinstance(exc, CandidateCodeFailed) else "making the case's inputs failed: "
                described["error"] = f"{made}{exc if made == '' else _one_line(exc)}"[:500]
            self.channel.send(protocol.CaseStart(index))
            self.channel.send(protocol.CaseFailed(index, **described))
            return False
        if case.get("refill") and self._kept is not None:
            inputs = refill(self._kept, inputs)
        self.channel.send(protocol.CaseStart(index))
        try:
            pristine = outputs.snapshot_inputs(inputs)
        except BaseException as exc:
            return self._harness_failed(index, exc, "keeping a copy of the case's inputs")
        if self.tuning is not None:  # the configuration tuned for a timed bench workload is the one timed
            self.tuning.quick = not case.get("full_tuning")
        self.guards.before_call()
        try:
            with self.recorder.recording(), traced(self.tracer, inputs), filled_new_memory():
                result = self.entry(**inputs)
            if self.device == "cuda":
                torch.cuda.synchronize()
        except BaseException as exc:
            self.channel.send(protocol.CaseFailed(index, **_describe(exc, importing=False)))
            return False
        violation = self.guards.after_call(result, inputs)
        if violation is not None:
            self.channel.send(protocol.CaseFailed(index, "REJECTED_RUNTIME", violation.message(), ""))
            return False
        tally = self.recorder.tally(inputs)
        path = self.job_dir / f"case_{index}.pt"
        try:
            mutated = outputs.changed_inputs(pristine, inputs)
            self.handover.save(result, path)
        except BaseException as exc:
            return self._harness_failed(index, exc, "comparing the inputs with their copy or handing the outputs over")
        del result, pristine
        self.handover.give_back_cached()  # the trusted worker judges next, on this GPU
        self._kept = inputs
        launches = None if self.tracer is None else self.tracer.last
        self.channel.send(protocol.CaseDone(index, path.name, tuple(mutated), tally, launches))
        return True

    def _harness_failed(self, index: int, exc: BaseException, doing: str) -> bool:
        """A case's own bookkeeping (copies of its inputs, the outputs' hand-over) failed: out of memory is the
        case's OUT_OF_MEMORY (the orchestrator runs it again alone if others shared the GPU); anything else is a
        fault of the worker, raised."""
        if _classify(exc, importing=False) != "OUT_OF_MEMORY":
            raise exc
        self.channel.send(protocol.CaseFailed(index, "OUT_OF_MEMORY", f"{doing}: {_one_line(exc)}"[:500], ""))
        return False


def _import_candidate(path: Path, name: str, entry_point: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    entry = getattr(module, entry_point, None)
    if not callable(entry):
        raise AttributeError(f"the candidate module has no callable `{entry_point}` after import")
    return entry


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def _describe(exc: BaseException, importing: bool) -> dict[str, Any]:
    """Status and trimmed error text for an exception raised by candidate code."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    if len(text) > _TRACE_LIMIT:
        text = text[:1000] + "\n...\n" + text[-(_TRACE_LIMIT - 1000) :]
    if _DENIED:  # the sandbox refused something the candidate tried: that, not the error it led to, is the verdict
        error = f"runtime.denied: the sandbox denied {_DENIED[0]}"
        return {"status": "REJECTED_RUNTIME", "error": error, "traceback": text}
    named = type(exc).__name__ != "NotTriton"  # its message is a verdict: `runtime.not_triton: ...`
    return {
        "status": _classify(exc, importing),
        "error": f"{type(exc).__name__}: {str(exc)[:500]}" if named else str(exc)[:500],
        "traceback": text,
    }


def _classify(exc: BaseException, importing: bool) -> str:
    name = type(exc).__name__
    module = type(exc).__module__ or ""
    message = str(exc)
    if name in ("TraceLost", "ExtensionChanged"):  # it stopped the launch trace, or swapped its extension's module
        return "REJECTED_RUNTIME"
    if name == "NotTriton":  # a kernel only the CPU interpreter runs (`kbx.evaluation.candidate.gpu_frontend`)
        return "REJECTED_RUNTIME"
    if isinstance(exc, MemoryError) or name == "OutOfMemoryError":
        return "OUT_OF_MEMORY"
    if name == "CudaShareError" and "(out of memory)" in message:  # the outputs' shared copy (`cuda_share`)
        return "OUT_OF_MEMORY"
    if "illegal memory access" in message or "misaligned address" in message or "unspecified launch" in message:
        return "CRASHED"
    if importing or module.startswith("triton.compiler") or name in {"CompilationError", "PTXASError"}:
        return "COMPILE_ERROR"
    return "RUNTIME_ERROR"


def _limit_resources(limits: dict[str, int]) -> None:
    """Self-imposed limits, set before any candidate code runs (soft = hard, so they cannot be raised)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for name, value in limits.items():
        which = getattr(resource, name)
        resource.setrlimit(which, (value, value))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
