"""The orchestrator's handle on the trusted worker (`kbx.evaluation.trusted.worker`): it starts the process, sends
it requests one at a time and turns its failures into exceptions. Nothing here touches torch or CUDA.

The worker is a fresh interpreter (`python -m kbx.evaluation.trusted.worker FD`) talking over one end of a socket
pair it inherits, not a `multiprocessing` child: a spawned child re-imports the caller's `__main__`, so a plain
script calling `kbx.evaluate` without an `if __name__ == "__main__":` guard would start it again, and fail.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from multiprocessing.connection import Connection
from multiprocessing.reduction import sendfds
from pathlib import Path
from typing import Any

import kbx
from kbx.errors import KbxError, ReferenceFailed
from kbx.evaluation.orchestrator.handover import close_all
from kbx.evaluation.protocol import DESCRIPTORS, JUDGES_VARIABLE, TrustedRequest
from kbx.timing.peaks import cache_root


class TrustedWorker:
    """Handle on the trusted process; requests are synchronous. A request that leaves the process unable to go on
    (its CUDA context broken by a device-side assert, or the process dead) raises `ReferenceFailed`, so that one
    evaluation is not judged; the next request starts a new process."""

    def __init__(self, device: str = "auto", gpu: str | None = None, judges: int = 1) -> None:
        """`gpu`: the one GPU (a `CUDA_VISIBLE_DEVICES` entry) the worker uses; None: as the environment says.
        `judges`: how many judging workers share the GPU's memory for cached references
        (`kbx.evaluation.trusted.references.budget`)."""
        self._device, self._gpu, self._judges = device, gpu, judges
        self._process: Any = None
        hello = self.request("hello", {})
        self.device: str = hello["device"]
        self.environment: dict[str, Any] = hello["environment"]

    def _start(self) -> None:
        ours, theirs = socket.socketpair()
        command = [sys.executable, "-m", "kbx.evaluation.trusted.worker", str(theirs.fileno()), self._device]
        if self._gpu is not None:
            command.append(self._gpu)
        with theirs:  # run from kbx's own directory: `-m` puts the working directory first on the import path
            self._process = subprocess.Popen(command, pass_fds=[theirs.fileno()], env=_environment(self._judges),
                                             cwd=_SOURCE, stdin=subprocess.DEVNULL)
        self._conn = Connection(ours.detach())

    def request(self, kind: TrustedRequest, payload: dict[str, Any], descriptors: list[int] | None = None) -> Any:
        """`descriptors`: sent after the request (SCM_RIGHTS), which says how many follow; closed here, sent or
        not."""
        if self._process is None:
            self._start()
        try:
            status, value = self._exchange(kind, payload, descriptors or [])
        except (EOFError, BrokenPipeError, ConnectionResetError):
            status, value = "lost", f"the trusted worker died (exit code {self._wait(10)})"
        finally:
            close_all(descriptors or [])
        if status == "lost":
            self._discard()
            if kind == "hello":
                raise RuntimeError(f"the trusted worker could not start: {value}")
            raise ReferenceFailed(f"{_task_of(payload)}{value} while serving {kind!r}; a new trusted worker takes over")
        if status == "error":
            for kind_of_error in (ReferenceFailed, KbxError):
                if value.startswith(f"{kind_of_error.__name__}: "):
                    raise kind_of_error(value.removeprefix(f"{kind_of_error.__name__}: "))
            raise RuntimeError(f"trusted worker failed on {kind!r}:\n{value}")
        return value

    def _exchange(self, kind: str, payload: dict[str, Any], descriptors: list[int]) -> tuple[str, Any]:
        self._conn.send((kind, {**payload, DESCRIPTORS: len(descriptors)} if descriptors else payload))
        if descriptors:
            with socket.socket(fileno=os.dup(self._conn.fileno())) as link:
                sendfds(link, descriptors)
        status, value = self._conn.recv()
        return status, value

    def _wait(self, seconds: float) -> int | None:
        """The process's exit code once it ends within `seconds`, else None (still running)."""
        try:
            return self._process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None

    def _discard(self) -> None:
        """Forget a process that cannot serve again (it ends by itself; killed if it does not)."""
        if self._wait(30) is None:
            self._process.kill()
            self._process.wait()
        self._conn.close()
        self._process = None

    def check(
        self, task_dir: Path, job_dir: Path, cases: list[dict[str, Any]], descriptors: list[int] | None = None
    ) -> list[dict[str, Any]]:
        """Judge the saved outputs of completed cases, with the descriptors of their shared outputs in order;
        returns one result dict per case."""
        payload = {"task_dir": str(task_dir), "job_dir": str(job_dir), "cases": cases}
        return self.request("check", payload, descriptors)

    def close(self) -> None:
        if self._process is None:
            return
        if self._process.poll() is None:
            try:
                self._conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        if self._wait(10) is None:
            self._process.kill()
            self._process.wait()
        self._conn.close()
        self._process = None


_SOURCE = Path(kbx.__file__).resolve().parent.parent
"""The directory kbx is imported from (a checkout's `src`, or site-packages)."""
INDUCTOR_CACHE = "TORCHINDUCTOR_CACHE_DIR"
"""torch.compile's cache folder (compiled baselines' graphs and kernels): the trusted worker's is
`$KBX_CACHE_DIR/inductor` unless set, so it lasts beyond /tmp and travels with the peaks. Only the trusted worker
writes there: candidates run as another user and never get this variable."""


def _environment(judges: int) -> dict[str, str]:
    """This process's environment, with the directory kbx is imported from first on the worker's import path (a
    checkout run with `PYTHONPATH=src`, or from a test runner that put it on `sys.path`), torch.compile's caches
    under kbx's cache root unless the user placed them (`INDUCTOR_CACHE`), and the number of judging workers."""
    source = str(_SOURCE)
    paths = [source, *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != source)]
    return {INDUCTOR_CACHE: str(cache_root() / "inductor"), **os.environ, "PYTHONPATH": os.pathsep.join(paths),
            JUDGES_VARIABLE: str(judges)}


def _task_of(payload: dict[str, Any]) -> str:
    """"task NAME: " for a request about a task (its folder is named after it; a KernelBench problem's file after
    its level and stem), else ""."""
    if "task_dir" not in payload:
        return ""
    path = Path(payload["task_dir"])
    return f"task {path.parent.name}/{path.stem}: " if path.suffix == ".py" else f"task {path.name}: "
