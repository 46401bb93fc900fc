"""The candidate-side zygote: its messages over the socket pair, and what a child it forks has become before the
worker's `main` runs (the orchestrator's handle on it: tests/evaluation/orchestrator/test_zygote.py)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import kbx
from kbx.candidates.source import Candidate
from kbx.tasks.registry import default_suite_root

SRC = str(Path(kbx.__file__).resolve().parent.parent)
RELU = (default_suite_root() / "Activation" / "relu" / "solution.py").read_text()

# The worker's `main` replaced by one that reports what the forked child is, then exits with the code the spec asks.
_BOOTSTRAP = f"""
import ctypes, json, os, sys
sys.path.insert(0, {SRC!r})
import kbx.evaluation.candidate.worker as worker

def main(argv, fds):
    spec = json.loads(open(argv[0]).read())
    death, libc = ctypes.c_int(), ctypes.CDLL(None)  # prctl 2: PR_GET_PDEATHSIG
    seen = {{"pid": os.getpid(), "sid": os.getsid(0), "cwd": os.getcwd(), "env": dict(os.environ),
            "pdeathsig": death.value if libc.prctl(2, ctypes.byref(death), 0, 0, 0) == 0 else None}}
    print(json.dumps(seen), flush=True)
    if spec.get("signal"):
        os.kill(os.getpid(), spec["signal"])
    return spec["code"]

worker.main = main
from kbx.evaluation.candidate.zygote import serve
serve(int(sys.argv[1]))
"""


class Link:
    """The orchestrator's end of the socket pair, spoken to directly."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self.process = subprocess.Popen([sys.executable, "-I", "-c", _BOOTSTRAP, str(theirs.fileno())],
                                            pass_fds=[theirs.fileno()], cwd=tmp_path, start_new_session=True)
        self.sock.settimeout(120)

    def receive(self) -> dict:
        return json.loads(self.sock.recv(4096))

    def fork(self, code: int = 0, sig: int = 0) -> tuple[int, dict]:
        """Ask for a worker; (its pid, what it reported on its output pipe)."""
        spec = self.tmp_path / f"spec-{time.monotonic_ns()}.json"
        spec.write_text(json.dumps({"code": code, "signal": sig}))
        out_read, out_write = os.pipe()
        ends = [os.pipe() for _ in range(3)]
        request = {"spec": str(spec), "cwd": str(self.tmp_path), "env": {"KBX_JOB": "7", "TMPDIR": "/tmp/job7"}}
        sent = [ends[0][1], ends[1][0], out_write, ends[2][1]]
        socket.send_fds(self.sock, [json.dumps(request).encode()], sent)
        for fd in (out_write, *(fd for pair in ends for fd in pair)):
            os.close(fd)
        pid = self.receive()["forked"]
        with os.fdopen(out_read) as output:
            return pid, json.loads(output.readline())

    def close(self) -> int:
        self.sock.close()
        return self.process.wait(timeout=30)


@contextmanager
def started(tmp_path: Path) -> Iterator[Link]:
    opened = Link(tmp_path)
    try:
        assert opened.receive() == {"ready": opened.process.pid}
        yield opened
    finally:
        if opened.process.poll() is None:
            opened.process.kill()
            opened.process.wait()


@pytest.fixture(scope="module")
def link(tmp_path_factory) -> Iterator[Link]:
    """One zygote for the module's tests (each takes seconds to import torch and triton)."""
    with started(tmp_path_factory.mktemp("zygote")) as opened:
        yield opened


def test_a_forked_worker_runs_in_its_own_session_dying_with_the_zygote_in_the_jobs_directory_and_environment(link):
    pid, seen = link.fork()
    assert seen["pid"] == pid != link.process.pid and seen["sid"] == pid and seen["pdeathsig"] == signal.SIGKILL
    assert seen["cwd"] == str(link.tmp_path) and seen["env"] == {"KBX_JOB": "7", "TMPDIR": "/tmp/job7"}
    assert link.receive() == {"exited": pid, "code": 0}


def test_exits_are_reported_with_their_code_or_negative_signal(link):
    pid, _ = link.fork(code=3)
    assert link.receive() == {"exited": pid, "code": 3}
    pid, _ = link.fork(sig=signal.SIGTERM)
    assert link.receive() == {"exited": pid, "code": -signal.SIGTERM}


def test_the_zygote_ends_when_the_orchestrator_closes_its_end(tmp_path):
    with started(tmp_path) as own:
        assert own.close() == 0


def test_a_forked_worker_holds_no_descriptor_of_the_zygote(cpu_evaluator, suite):
    """It has what a fresh worker has: stdin, stdout, stderr, the channel and the command pipe."""
    probe = RELU.replace(
        "def relu(input):",
        "def relu(input):\n"
        "    import os\n"
        "    raise RuntimeError('descriptors ' + ','.join(sorted(os.listdir('/proc/self/fd'), key=int)))\n"
        "\n\ndef _unused(input):",
    )
    evaluation = cpu_evaluator.evaluate(suite["relu"], Candidate("fds", "relu", probe))
    assert evaluation.status.value == "RUNTIME_ERROR", evaluation.message
    listed = evaluation.message.split("descriptors ")[1].split()[0].strip("')\"").split(",")
    assert len(listed) <= 7, listed  # 0, 1, 2, channel, commands, descriptor socket, and the listing's own
