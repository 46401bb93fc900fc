"""The warden: the process the orchestrator starts, which puts the candidate worker in a PID namespace of its own.

`split` enters a new PID namespace (with a user namespace first where kbx does not run as root) and forks. It
returns only in the child, PID 1 of the new namespace, which goes on to become the candidate worker. The parent,
the warden, closes every inherited descriptor but stdout and stderr (so the channel's end is the worker's alone),
becomes undumpable and waits; when the worker ends, so does every process in its namespace (the kernel kills
them), and the warden exits with the worker's status (dying of the same signal where it was killed; of SIGXCPU
where the kernel killed it at the CPU-time limit, since PID 1 ignores the SIGXCPU of the soft limit). When the
warden is killed (the orchestrator kills its process group at the time limit), the worker's parent-death signal
kills it, and with it the namespace.
"""

from __future__ import annotations

import os
import resource
import signal
from pathlib import Path

from kbx.evaluation.confinement import libc


def split(user_namespace: bool) -> None:
    """Fork into a new PID namespace; returns in the child (PID 1 there) only. Raises OSError when the kernel
    refuses the namespace."""
    uid, gid = os.getuid(), os.getgid()
    libc.unshare(libc.CLONE_NEWPID | (libc.CLONE_NEWUSER if user_namespace else 0))
    if user_namespace:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"0 {uid} 1")
        Path("/proc/self/gid_map").write_text(f"0 {gid} 1")
    # Held from before the fork until the warden's handlers are in: a stop that came between (the worker is quick
    # to start; a loaded CI machine, 2026-11-28) killed the warden by the default action, not by its handler.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS)
    try:
        pid = os.fork()
    except OSError:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        raise
    if pid == 0:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        libc.prctl(libc.PR_SET_PDEATHSIG, signal.SIGKILL)
        return
    _watch(pid, mask)


_STOPS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that stop the warden (it kills the worker, then exits)."""


def _watch(pid: int, mask: set[signal.Signals]) -> None:
    """The warden's whole life after the fork: wait for the worker, then leave as it left (`mask`: the signal
    mask from before the fork, restored once the stops have their handlers)."""
    os.closerange(3, _max_fd())
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        libc.set_undumpable()
    except OSError:
        pass
    for sig in _STOPS:
        signal.signal(sig, lambda *_: _kill_and_exit(pid))
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)
    _, status, usage = os.wait4(pid, 0)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig == signal.SIGKILL and _spent_its_cpu_time(usage):
            sig = signal.SIGXCPU  # the kernel's kill at the hard limit: PID 1 ignores SIGXCPU at the soft one
        if sig != signal.SIGKILL:
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _spent_its_cpu_time(usage: resource.struct_rusage) -> bool:
    """Whether the worker's CPU time reached the hard RLIMIT_CPU it shares with the warden: a SIGKILL then came
    from the kernel for that limit (reported as the CPU-time limit, not as a kill from outside)."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    return hard != resource.RLIM_INFINITY and usage.ru_utime + usage.ru_stime >= hard - 0.5


def _kill_and_exit(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os._exit(128 + signal.SIGTERM)


def _max_fd() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if 0 < soft < 1 << 20 else 1 << 16
