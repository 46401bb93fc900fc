"""The candidate worker: a fresh process that imports one candidate and calls it on every case (DESIGN §4).

It is started by `kbx.evaluation.sandbox` with a scrubbed environment, in its own temporary directory, and
killed from outside when it overruns. It regenerates each case's inputs from the seed, calls the candidate,
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
import sys
import traceback
from pathlib import Path
from typing import Any

_TRACE_LIMIT = 4000


class _Channel:
    """JSON lines to the orchestrator on an inherited pipe, and its acknowledgements on another."""

    def __init__(self, fd: int, ack_fd: int) -> None:
        self._file = os.fdopen(fd, "w", buffering=1)
        self._acks = os.fdopen(ack_fd, "r")

    def send(self, event: str, **fields: Any) -> None:
        self._file.write(json.dumps({"event": event, **fields}) + "\n")
        self._file.flush()

    def wait_ack(self) -> bool:
        """Block until the orchestrator has judged (and removed) the last saved case; True to go on."""
        return self._acks.readline().strip() == "next"


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[0]).read_text())
    channel = _Channel(spec["channel_fd"], spec["ack_fd"])
    _limit_resources(spec["limits"])
    _install_audit_hook()
    os.chdir(spec["cwd"])

    import torch

    from kbx.evaluation import outputs
    from kbx.evaluation.guards import CANDIDATE_MODULE, Guards
    from kbx.tasks.meta import read_task
    from kbx.tasks.module import import_task

    device = spec["device"]
    if device == "cpu":
        from kbx.evaluation.interpreter import install_interpreter_shims

        install_interpreter_shims()
        torch.set_num_threads(1)
    task = read_task(Path(spec["task_dir"]))
    make_inputs = import_task(task).make_inputs
    guards = Guards(device, watched=[outputs, _Channel, sys.modules[__name__]])
    channel.send("started", pid=os.getpid())

    try:
        entry = _import_candidate(Path(spec["candidate_file"]), CANDIDATE_MODULE, task.name)
    except BaseException as exc:  # candidate failures are data: report and stop
        channel.send("import_error", **_describe(exc, importing=True))
        return 0
    violation = guards.after_import()
    if violation is not None:
        channel.send("import_error", status="REJECTED_RUNTIME", error=violation.message(), traceback="")
        return 0
    channel.send("imported")

    for case in spec["cases"]:
        index = case["index"]
        generator = torch.Generator(device=device).manual_seed(case["seed"])
        inputs = make_inputs(task.workload(case["workload"]), case["dtype"], generator)
        pristine = outputs.snapshot_inputs(inputs)
        channel.send("case_start", index=index)
        guards.before_call()
        try:
            result = entry(**inputs)
            if device == "cuda":
                torch.cuda.synchronize()
        except BaseException as exc:
            channel.send("case_error", index=index, **_describe(exc, importing=False))
            return 0
        violation = guards.after_call(result, inputs)
        if violation is not None:
            channel.send("case_error", index=index, status="REJECTED_RUNTIME", error=violation.message(), traceback="")
            return 0
        path = Path(spec["job_dir"]) / f"case_{index}.pt"
        mutated = outputs.changed_inputs(pristine, inputs)
        torch.save({"outputs": outputs.pack_outputs(result)}, path)
        del result, inputs, pristine
        channel.send("case_done", index=index, file=path.name, mutated=mutated)
        if not channel.wait_ack():
            return 0
    channel.send("finished")
    return 0


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


def _describe(exc: BaseException, importing: bool) -> dict[str, Any]:
    """Status and trimmed error text for an exception raised by candidate code."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    if len(text) > _TRACE_LIMIT:
        text = text[:1000] + "\n...\n" + text[-(_TRACE_LIMIT - 1000) :]
    return {
        "status": _classify(exc, importing),
        "error": f"{type(exc).__name__}: {str(exc)[:500]}",
        "traceback": text,
    }


def _classify(exc: BaseException, importing: bool) -> str:
    name = type(exc).__name__
    module = type(exc).__module__ or ""
    message = str(exc)
    if isinstance(exc, MemoryError) or name == "OutOfMemoryError":
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


def _install_audit_hook() -> None:
    """Deny network access to candidate code; anti-cheat rules build on this hook."""
    denied = {"socket.connect", "socket.bind", "socket.getaddrinfo"}

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in denied:
            raise PermissionError(f"kbx sandbox: {event} is not allowed")

    sys.addaudithook(hook)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
