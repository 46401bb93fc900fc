"""The zygote: a process that has imported what every candidate worker imports (torch, triton, the worker's own
modules) and forks a fresh worker for each candidate, so a worker starts in milliseconds instead of seconds.

It is started by `kbx.evaluation.orchestrator.zygote` with the scrubbed environment of candidate workers and talks to
it over one end of a SOCK_SEQPACKET socket pair: a request is one JSON message (the job's spec file, its working
directory and environment) carrying four descriptors (the channel's write end, the command pipe's read end, the output
pipe's write end, the worker's end of the descriptor socket); the answers are `{"forked": PID}` and, when a worker
ends, `{"exited": PID, "code": C}` (C as `subprocess` gives it: negative for a signal).

The zygote never initialises CUDA (the worker confines itself before CUDA starts, and a forked CUDA context would
be unusable), starts no thread (a fork copies only the calling thread), and holds nothing a candidate could want: no
reference outputs, no other job's files. Each child leaves the zygote's socket behind, starts a session of its own
(the orchestrator kills its process group at the time limit), dies with the zygote (parent-death signal), and then
runs the worker's `main` exactly as a freshly started worker would: confinement, audit hook and guards are set up
in the child, per candidate, before the candidate is imported.

Everything imported here must be importable with torch + triton + numpy + the standard library.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import socket
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

_REQUEST_BYTES = 1 << 16
_DESCRIPTORS = 4
_CUDA_NOT_INITIALIZED = 3
"""`CUDA_ERROR_NOT_INITIALIZED`: what the driver answers before `cuInit`, without initialising itself."""


def serve(fd: int) -> None:
    """Import, say ready, then fork a worker per request until the orchestrator closes its end."""
    import torch  # noqa: F401 - what every worker imports, imported once here
    import triton  # noqa: F401

    import kbx.evaluation.candidate.worker as worker

    worker.preload()
    link = socket.socket(fileno=fd)
    if _cuda_started():  # a worker forked from here could not use CUDA: let the orchestrator start them fresh
        print("kbx zygote: CUDA was initialised while importing; not forking workers", file=sys.stderr)
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt reaches the orchestrator, which closes this
    _send(link, {"ready": os.getpid()})
    while True:
        readable, _, _ = select.select([link], [], [], 0.05)
        _reap(link)
        if not readable:
            continue
        try:
            message, fds, _, _ = socket.recv_fds(link, _REQUEST_BYTES, _DESCRIPTORS)
        except OSError:
            return
        if not message:  # the orchestrator is gone: so are its workers (their parent-death signal)
            return
        pid = os.fork()
        if pid == 0:
            _become_worker(link, json.loads(message), fds, worker.main)
        for received in fds:
            os.close(received)
        _send(link, {"forked": pid})


def _close_all_but(*kept: int) -> None:
    """Close every descriptor but `kept`: an inherited one could point outside the view the worker builds (a
    directory opened before its pivot_root is a way out of it)."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in kept:
            try:
                os.close(fd)
            except OSError:  # the listing's own descriptor, closed by now
                pass


def _cuda_started() -> bool:
    """Whether anything imported so far initialised CUDA: torch's state, or the driver itself (Triton's driver check
    calls into it from 3.7 on). `import torch` loads the driver library without initialising it (seen on an H100
    with torch 2.11), and a fork of a process in that state can use CUDA; a fork after `cuInit` cannot."""
    import torch

    if torch.cuda.is_initialized():
        return True
    try:
        if "libcuda.so" not in Path("/proc/self/maps").read_text():
            return False
        context = ctypes.c_void_p()
        return ctypes.CDLL("libcuda.so.1").cuCtxGetCurrent(ctypes.byref(context)) != _CUDA_NOT_INITIALIZED
    except OSError:
        return True


def _reap(link: socket.socket) -> None:
    """Report every worker that has ended."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _send(link, {"exited": pid, "code": os.waitstatus_to_exitcode(status)})


def _send(link: socket.socket, message: dict[str, Any]) -> None:
    try:
        link.send(json.dumps(message).encode())
    except OSError:
        pass


def _become_worker(link: socket.socket, request: dict[str, Any], fds: list[int], main: Any) -> None:
    """In the forked child: shed the zygote, take the job's descriptors, environment and directory, run the worker.
    Never returns."""
    code = 1
    try:
        link.close()
        from kbx.evaluation.confinement import libc

        os.setsid()
        libc.prctl(libc.PR_SET_PDEATHSIG, signal.SIGKILL)
        channel, acks, output, handles = fds
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.close(output)
        _close_all_but(0, 1, 2, channel, acks, handles)  # as a fresh process would have: nothing of the zygote's
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.environ.clear()
        os.environ.update(request["env"])
        tempfile.tempdir = None  # read again from TMPDIR, the job's own
        os.chdir(request["cwd"])
        code = main([request["spec"]], fds=(channel, acks, handles))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


if __name__ == "__main__":
    serve(int(sys.argv[1]))
