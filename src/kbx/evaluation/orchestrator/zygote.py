"""The orchestrator's handle on a zygote (`kbx.evaluation.candidate.zygote`): a process that has imported torch,
triton and the worker, and forks a fresh candidate worker on request. One per Evaluator, started with its first
candidate; thread-safe, so the Evaluator's concurrent jobs share it.

A forked worker is a `ForkedWorker`: it answers `poll()` like a `subprocess.Popen` (its exit code once the zygote
reports it) and is killed through its process group, as a started worker is. When the zygote cannot start or has
died, `fork` raises `ZygoteLost` and the caller starts the worker the slow way.
"""

from __future__ import annotations

import json
import queue
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

_READY_S = 120.0
"""How long the zygote may take to import torch and triton."""
_FORK_S = 30.0


class ZygoteLost(RuntimeError):
    """The zygote did not start, or is gone."""


class ForkedWorker:
    """A worker the zygote forked: its pid (its process group's too) and, once it ended, its exit code."""

    def __init__(self, pid: int, zygote: Zygote) -> None:
        self.pid = pid
        self._zygote = zygote

    def poll(self) -> int | None:
        return self._zygote.exit_code(self.pid)

    @property
    def returncode(self) -> int | None:
        return self.poll()


class Zygote:
    def __init__(self, bootstrap: str, env: dict[str, str], cwd: Path) -> None:
        """Start the zygote (it imports in the background; the first `fork` waits for it). `bootstrap`: Python
        source that puts kbx on the path and runs `serve(int(sys.argv[1]))` of the zygote; `env`: the scrubbed
        environment of candidate workers on this device; `cwd`: a directory of its own, removed by `close`."""
        self._cwd = cwd
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-u", "-c", bootstrap, str(theirs.fileno())], env=env, cwd=cwd,
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                start_new_session=True,
            )
        self._link = ours
        self._lock = threading.Lock()
        """Guards `_exits` and `_alive`."""
        self._forking = threading.Lock()
        """One request at a time, from its sending to its answer: answers come in the order of the requests."""
        self._forked: queue.Queue[int] = queue.Queue()
        self._exits: dict[int, int] = {}
        self._alive = True
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, name="kbx-zygote", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                message = self._link.recv(4096)
            except OSError:
                message = b""
            if not message:
                break
            answer = json.loads(message)
            if "ready" in answer:
                self._ready.set()
            elif "forked" in answer:
                self._forked.put(int(answer["forked"]))
            elif "exited" in answer:
                with self._lock:
                    self._exits[int(answer["exited"])] = int(answer["code"])
        self._alive = False  # its workers die with it (their parent-death signal)
        self._ready.set()
        self._forked.put(-1)

    def fork(
        self, spec_file: Path, cwd: Path, env: dict[str, str], fds: tuple[int, int, int, int]
    ) -> ForkedWorker:
        """Fork a worker for the job `spec_file`; `fds`: the channel's write end, the command pipe's read end, the
        output pipe's write end and the worker's end of the descriptor socket (the caller closes its copies)."""
        request = json.dumps({"spec": str(spec_file), "cwd": str(cwd), "env": env}).encode()
        with self._forking:
            if not self._ready.wait(_READY_S):
                self._alive = False
            if not self._alive:
                raise ZygoteLost("the zygote is gone")
            try:
                socket.send_fds(self._link, [request], list(fds))
                pid = self._forked.get(timeout=_FORK_S)
            except (OSError, queue.Empty) as exc:
                self._alive = False  # no answer: never ask this one again
                raise ZygoteLost("the zygote forked no worker") from exc
        if pid < 0:
            raise ZygoteLost("the zygote is gone")
        return ForkedWorker(pid, self)

    def exit_code(self, pid: int) -> int | None:
        with self._lock:
            code = self._exits.get(pid)
            if code is None and not self._alive:
                return -9  # the zygote died, and its workers with it
            return code

    def close(self) -> None:
        try:
            self._link.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._link.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        shutil.rmtree(self._cwd, ignore_errors=True)
