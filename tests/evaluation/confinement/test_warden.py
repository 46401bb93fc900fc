"""The warden alone (`split`, without the rest of the confinement): the worker is PID 1 of a namespace of its own,
the warden leaves as the worker left and holds none of its descriptors, and nothing the worker started outlives
it (the whole boundary: tests/evaluation/confinement/test_boundary.py)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import kbx

SRC = str(Path(kbx.__file__).resolve().parent.parent)
PRELUDE = f"""
import json, os, signal, sys, time
sys.path.insert(0, {SRC!r})
from kbx.evaluation.confinement.warden import split
split(os.environ.get("KBX_TEST_USERNS") == "1")
"""


def warden(payload: str, *args: str, user_namespace: bool = os.geteuid() != 0, **popen) -> subprocess.Popen:
    """Start a process that splits off its warden and runs `payload` as the worker; the Popen is the warden's."""
    env = {**os.environ, "KBX_TEST_USERNS": "1" if user_namespace else "0"}
    return subprocess.Popen([sys.executable, "-I", "-c", PRELUDE + textwrap.dedent(payload), *args], env=env,
                            text=True, **popen)


def finished(payload: str, *args: str, **kwargs) -> subprocess.CompletedProcess:
    process = warden(payload, *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)
    out, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


@pytest.mark.parametrize("user_namespace", [False, True])
def test_the_worker_is_pid_1_of_its_own_namespace_and_dies_with_the_warden(user_namespace):
    if not user_namespace and os.geteuid() != 0:
        pytest.skip("a PID namespace without a user namespace needs root")
    done = finished(
        """
        import ctypes
        death = ctypes.c_int()
        ctypes.CDLL(None).prctl(2, ctypes.byref(death), 0, 0, 0)  # PR_GET_PDEATHSIG
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
        print(json.dumps({"pid": os.getpid(), "pdeathsig": death.value, "child": child}))
        """,
        user_namespace=user_namespace,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == f'{{"pid": 1, "pdeathsig": {int(signal.SIGKILL)}, "child": 2}}'


def test_the_warden_exits_with_the_workers_code():
    assert finished("os._exit(7)").returncode == 7
    assert finished("sys.exit(0)").returncode == 0


def test_the_warden_dies_of_the_signal_that_killed_the_worker():
    payload = "import ctypes, resource; resource.setrlimit(resource.RLIMIT_CORE, (0, 0)); ctypes.string_at(0)"
    assert finished(payload).returncode == -signal.SIGSEGV


def test_a_worker_killed_at_its_cpu_time_limit_is_reported_as_such():
    """PID 1 ignores the soft limit's SIGXCPU, so the kernel's SIGKILL at the hard limit ends it; the warden, which
    sees its CPU time, dies of SIGXCPU (`failures` reports the CPU-time limit, not a kill from outside)."""
    payload = "while True: pass"
    process = warden(payload, preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CPU, (1, 1)))
    assert process.wait(timeout=30) == -signal.SIGXCPU


def test_a_worker_killed_from_outside_is_reported_as_killed():
    """PID 1 of a namespace ignores signals it has no handler for, but not SIGKILL from an ancestor namespace
    (the OOM killer's, or the orchestrator's)."""
    process = warden("print('ready', flush=True); time.sleep(30)", stdout=subprocess.PIPE)
    assert process.stdout.readline() == "ready\n"
    (worker,) = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
    os.kill(int(worker), signal.SIGUSR1)  # no handler: PID 1 is spared
    os.kill(int(worker), signal.SIGKILL)
    assert process.wait(timeout=10) == -signal.SIGKILL


def test_the_warden_holds_no_inherited_descriptor_past_stdio():
    read_end, write_end = os.pipe()
    process = warden("print('ready', flush=True); time.sleep(30)", stdout=subprocess.PIPE, pass_fds=[write_end])
    os.close(write_end)
    try:
        assert process.stdout.readline() == "ready\n"
        deadline, held = time.monotonic() + 10, None
        while time.monotonic() < deadline:
            held = {int(fd) for fd in os.listdir(f"/proc/{process.pid}/fd")}
            if held <= {0, 1, 2}:
                break
            time.sleep(0.05)
        assert held <= {0, 1, 2}, held
    finally:
        process.kill()
        process.wait()
        os.close(read_end)


def test_a_warden_told_to_stop_kills_the_worker_and_exits(tmp_path):
    marker = tmp_path / "alive"
    process = warden("print('ready', flush=True); time.sleep(2); open(sys.argv[1], 'w').write('x')", str(marker),
                     stdout=subprocess.PIPE)
    assert process.stdout.readline() == "ready\n"
    process.terminate()
    assert process.wait(timeout=10) == 128 + signal.SIGTERM
    time.sleep(3)
    assert not marker.exists(), "the worker ran on after its warden stopped"


def test_no_process_outlives_it(tmp_path):
    token = f"kbx-survivor-{os.getpid()}-{time.monotonic_ns()}"
    marker = tmp_path / "alive"
    done = finished(
        """
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:  # a detached grandchild, as a daemon makes itself
                time.sleep(3)
                open(sys.argv[1], "w").write("still alive")
                os._exit(0)
            os._exit(0)
        print(json.dumps({"forked": True}))
        """,
        str(marker), token,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    time.sleep(4)
    assert not marker.exists(), "a process the candidate started ran on after it ended"
    survivors = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline_has(p, token)]
    assert survivors == []


def _cmdline_has(pid: str, token: str) -> bool:
    try:
        return token.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
