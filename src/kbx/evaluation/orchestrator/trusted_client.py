"""The orchestrator's handle on the trusted worker (`kbx.evaluation.trusted.worker`): it starts the process, sends
it requests one at a time and turns its failures into exceptions. Nothing here touches torch or CUDA.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

from kbx.errors import KbxError, ReferenceFailed
from kbx.evaluation.protocol import TrustedRequest
from kbx.evaluation.trusted.worker import serve


class TrustedWorker:
    """Handle on the trusted process; requests are synchronous. A request that leaves the process unable to go on
    (its CUDA context broken by a device-side assert, or the process dead) raises `ReferenceFailed`, so that one
    evaluation is not judged; the next request starts a new process."""

    def __init__(self, device: str = "auto", gpu: str | None = None) -> None:
        """`gpu`: the one GPU (a `CUDA_VISIBLE_DEVICES` entry) the worker uses; None: as the environment says."""
        self._device, self._gpu = device, gpu
        self._process: Any = None
        hello = self.request("hello", {})
        self.device: str = hello["device"]
        self.environment: dict[str, Any] = hello["environment"]

    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._process = ctx.Process(
            target=serve, args=(child, self._device, self._gpu), name="kbx-trusted", daemon=True
        )
        self._process.start()
        child.close()

    def request(self, kind: TrustedRequest, payload: dict[str, Any]) -> Any:
        if self._process is None:
            self._start()
        try:
            self._conn.send((kind, payload))
            status, value = self._conn.recv()
        except (EOFError, BrokenPipeError, ConnectionResetError):
            self._process.join(timeout=10)
            status, value = "lost", f"the trusted worker died (exit code {self._process.exitcode})"
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

    def _discard(self) -> None:
        """Forget a process that cannot serve again (it ends by itself; killed if it does not)."""
        self._process.join(timeout=30)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()
        self._conn.close()
        self._process = None

    def check(self, task_dir: Path, job_dir: Path, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Judge the saved outputs of completed cases; returns one result dict per case."""
        return self.request("check", {"task_dir": str(task_dir), "job_dir": str(job_dir), "cases": cases})

    def close(self) -> None:
        if self._process is None:
            return
        if self._process.is_alive():
            try:
                self._conn.send(None)
            except (BrokenPipeError, OSError):
                pass
            self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.kill()
        self._conn.close()
        self._process = None


def _task_of(payload: dict[str, Any]) -> str:
    """"task NAME: " for a request about a task (its folder is named after it), else ""."""
    return f"task {Path(payload['task_dir']).name}: " if "task_dir" in payload else ""
