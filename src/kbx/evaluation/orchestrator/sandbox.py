"""Run the candidate worker in a fresh, scrubbed, limited process and collect what it reported (DESIGN §4).

The worker's stdout and stderr are drained continuously and only a head and a tail are kept, so a candidate
that prints 100 MB neither blocks nor floods memory. The wall-clock limit is enforced from here by killing the
process group of the worker's warden (`kbx.evaluation.confinement.warden`); the worker's parent-death signal then
ends its PID namespace, and with it every process the candidate started.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kbx
from kbx.evaluation.confinement.enter import ConfinementSpec, default_hidden, for_this_process
from kbx.evaluation.orchestrator.handover import Inbox
from kbx.evaluation.orchestrator.triton_host import TritonHost
from kbx.evaluation.orchestrator.zygote import ForkedWorker, Zygote, ZygoteLost
from kbx.evaluation.protocol import Event, decode

_KEEP_ENV = ("PATH", "LANG", "LC_ALL", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES",
             "CUDA_DEVICE_ORDER", "TRITON_PTXAS_PATH", "TRITON_LIBCUDA_PATH", "NCCL_NVLS_ENABLE",
             "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS")
_OUTPUT_KEEP = 8192
_GIB = 1 << 30


@dataclass(frozen=True)
class Limits:
    """Resource limits of one candidate worker."""

    timeout_s: float | None = None
    """Wall-clock limit for the whole job (import, compile, every case); None: the device's default
    (`kbx.evaluation.orchestrator.pipeline.DEFAULT_TIMEOUT_S`)."""
    confined: bool = True
    """Run the worker in its OS confinement (`kbx.evaluation.confinement`); False only with `--unconfined`."""
    memory_bytes: int | None = 8 * _GIB
    """Address-space cap; applied on the CPU only (CUDA reserves huge virtual ranges)."""
    file_bytes: int = 32 * _GIB
    """Largest file the worker may write."""
    open_files: int = 4096
    compile_timeout_s: float | None = None
    """Wall-clock limit for building a CUDA candidate's extensions, apart from `timeout_s`; None: the default
    (`kbx.evaluation.orchestrator.extensions.DEFAULT_COMPILE_TIMEOUT_S`)."""


@dataclass
class WorkerRun:
    """What one candidate worker did, as seen from outside."""

    events: list[Event] = field(default_factory=list)
    returncode: int | None = None
    timed_out: bool = False
    elapsed_s: float = 0.0
    output: str = ""
    """Head and tail of the worker's stdout+stderr."""
    job_dir: Path | None = None
    judged_s: float = 0.0
    """Time the worker spent waiting for cases to be judged; not counted against its limit."""


def scratch_root() -> Path:
    """Where job directories go: RAM-backed /dev/shm when usable (outputs can be large), else the temp dir."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK) and shutil.disk_usage(shm).free > 4 * _GIB:
        return shm
    return Path(tempfile.gettempdir())


OnEvent = Callable[[Event], str | None]
"""Called on the reader thread with every event the worker sends; returns the line to send back on the command
pipe (a JSON command or "stop"), or None to send nothing. Its time is not charged to the candidate's limit."""


def run_worker(
    task_dir: Path, code: str, device: str, limits: Limits, job_dir: Path, on_event: OnEvent, gpu: str | None = None,
    confinement: ConfinementSpec | None = None, zygote: Zygote | None = None, inbox: Inbox | None = None,
    extra: Mapping[str, Any] | None = None, triton_host: TritonHost | None = None,
) -> WorkerRun:
    """Start a candidate worker and wait for it, killing it at the time limit. The worker learns its work one
    command at a time from `on_event`'s replies, so nothing it can read tells it what comes next. `gpu`: the one
    GPU (a `CUDA_VISIBLE_DEVICES` entry) the worker may see; None leaves the visible devices as they are.
    `confinement`: how the worker confines itself before importing the candidate (default: as `limits` says, for
    this process's user). `zygote`: forks the worker ready-imported (`kbx.evaluation.orchestrator.zygote`); without
    one, or when it is gone, the worker starts as a fresh interpreter. `inbox`: where the worker hands over the
    descriptors of its shared outputs (`kbx.evaluation.orchestrator.handover`); a caller that judges no shared
    output may leave it out. `extra`: more entries of the job spec (a CUDA candidate's extensions, or the build job
    that compiles them: `kbx.evaluation.orchestrator.extensions`). `triton_host`: Triton's host code, copied into
    the worker's Triton cache before it starts and told the launchers the worker reported
    (`kbx.evaluation.orchestrator.triton_host`).

    Raises:
        Exception: whatever `on_event` raised (a harness bug); the worker is killed first.
    """
    assert limits.timeout_s is not None, "the Evaluator resolves the device's default limit"
    cwd = job_dir / "cwd"
    cwd.mkdir(parents=True)
    if triton_host is not None:
        triton_host.seed(cwd / _TRITON_CACHE)
    read_fd, write_fd = os.pipe()
    ack_read_fd, ack_write_fd = os.pipe()
    own_inbox = inbox is None
    inbox = inbox or Inbox()
    confinement = confinement or for_this_process(limits.confined, default_hidden())
    spec_file = _write_spec(job_dir, task_dir, code, device, limits, confinement,
                            {**(extra or {}), "channel_fd": write_fd, "ack_fd": ack_read_fd,
                             "handles_fd": inbox.worker_end})
    run = WorkerRun(job_dir=job_dir)
    start = time.monotonic()
    try:
        proc, stdout = _start(
            spec_file, cwd, _scrubbed_env(cwd, device, gpu), (write_fd, ack_read_fd, inbox.worker_end), zygote
        )
    finally:
        os.close(write_fd)
        os.close(ack_read_fd)
        inbox.started()
    output = _BoundedReader(stdout)
    acks = os.fdopen(ack_write_fd, "w")
    events = _EventReader(read_fd, on_event, acks, lambda: _kill_group(proc))
    run.timed_out = _wait(proc, start, limits.timeout_s, events)
    run.returncode = proc.returncode
    run.elapsed_s = time.monotonic() - start
    _kill_group(proc)  # grandchildren the candidate may have left behind
    run.output = output.finish()
    run.events = events.finish()
    run.judged_s = events.judged_s
    if triton_host is not None:
        triton_host.learn_from(run.events)
    if own_inbox:
        inbox.close()
    if events.failure is not None:
        raise events.failure
    return run


def _wait(proc: subprocess.Popen[bytes] | ForkedWorker, start: float, limit_s: float, events: _EventReader) -> bool:
    """Wait for the worker to end, killing it once it has used `limit_s` of its own time; whether it was killed."""
    timed_out = False
    while proc.poll() is None:
        if time.monotonic() - start - events.answering_s() > limit_s:
            timed_out = True
            _kill_group(proc)
        time.sleep(0.05)
    return timed_out


def _write_spec(
    job_dir: Path, task_dir: Path, code: str, device: str, limits: Limits, confinement: ConfinementSpec,
    fds: dict[str, int],
) -> Path:
    """The candidate's file and the worker's job spec (which the worker deletes on reading), in `job_dir`."""
    candidate_file = job_dir / "candidate.py"
    candidate_file.write_text(code)
    spec = {
        **fds,
        "task_dir": str(task_dir),
        "candidate_file": str(candidate_file),
        "job_dir": str(job_dir),
        "cwd": str(job_dir / "cwd"),
        "device": device,
        "limits": _rlimits(limits, device),
        "confinement": confinement.to_json(),
    }
    spec_file = job_dir / "job.json"
    spec_file.write_text(json.dumps(spec))
    return spec_file


def _start(
    spec_file: Path, cwd: Path, env: dict[str, str], fds: tuple[int, int, int], zygote: Zygote | None
) -> tuple[subprocess.Popen[bytes] | ForkedWorker, Any]:
    """The worker's process (forked by the zygote when there is one that answers, else a fresh interpreter) and
    the stream of its stdout and stderr."""
    if zygote is not None:
        out_read, out_write = os.pipe()
        try:
            forked = zygote.fork(spec_file, cwd, env, (fds[0], fds[1], out_write, fds[2]))
        except ZygoteLost:
            os.close(out_read)
        else:
            return forked, os.fdopen(out_read, "rb")
        finally:
            os.close(out_write)
    proc = subprocess.Popen(
        [sys.executable, "-I", "-u", "-c", _bootstrap(_WORKER), str(spec_file)],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        pass_fds=fds,
        start_new_session=True,
    )
    return proc, proc.stdout


_TRITON_CACHE = ".triton"
"""A worker's Triton cache, in its own directory: its alone, so no candidate loads what another compiled."""
_WORKER = "from kbx.evaluation.candidate.worker import main; sys.exit(main(sys.argv[1:]))"
_ZYGOTE = "from kbx.evaluation.candidate.zygote import serve; serve(int(sys.argv[1]))"


def _bootstrap(statements: str) -> str:
    """Python source for `python -I -c`: kbx's source first on the path, then `statements`."""
    src = str(Path(kbx.__file__).resolve().parent.parent)
    return f"import sys; sys.path.insert(0, {src!r}); {statements}"


def start_zygote(device: str, gpu: str | None) -> Zygote | None:
    """A zygote for this device's candidate workers, or None where it cannot start (workers then start fresh)."""
    cwd = Path(tempfile.mkdtemp(prefix="kbx-zygote-", dir=scratch_root()))
    try:
        return Zygote(_bootstrap(_ZYGOTE), _scrubbed_env(cwd, device, gpu), cwd)
    except OSError:
        shutil.rmtree(cwd, ignore_errors=True)
        return None


def _scrubbed_env(cwd: Path, device: str, gpu: str | None = None) -> dict[str, str]:
    env = {k: os.environ[k] for k in _KEEP_ENV if k in os.environ}
    env.update(HOME=str(cwd), TMPDIR=str(cwd), TRITON_CACHE_DIR=str(cwd / _TRITON_CACHE))
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = gpu
    if device == "cpu":
        env.update(TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


def _rlimits(limits: Limits, device: str) -> dict[str, int]:
    values = {
        "RLIMIT_FSIZE": limits.file_bytes,
        "RLIMIT_NOFILE": limits.open_files,
        "RLIMIT_CPU": int(limits.timeout_s) + 60,
    }
    if device == "cpu" and limits.memory_bytes:
        values["RLIMIT_AS"] = limits.memory_bytes
    return values


def _kill_group(proc: subprocess.Popen[bytes] | ForkedWorker) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _BoundedReader:
    """Drains a stream on a thread, keeping its first and last bytes."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = 0
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while chunk := self._stream.read1(65536):
            room = _OUTPUT_KEEP - len(self._head)
            if room > 0:
                self._head += chunk[:room]
                chunk = chunk[room:]
            self._tail += chunk
            if len(self._tail) > _OUTPUT_KEEP:
                self._dropped += len(self._tail) - _OUTPUT_KEEP
                del self._tail[: len(self._tail) - _OUTPUT_KEEP]

    def finish(self) -> str:
        self._thread.join(timeout=10)
        self._stream.close()
        middle = f"\n[... {self._dropped} bytes dropped ...]\n" if self._dropped else ""
        return (bytes(self._head) + middle.encode() + bytes(self._tail)).decode(errors="replace")


class _EventReader:
    """Reads JSON-line events from the worker's channel on a thread and answers each through `on_event`."""

    _MAX_EVENTS = 100_000
    _MAX_LINE = 1 << 16

    def __init__(self, fd: int, on_event: OnEvent, acks: Any, kill: Callable[[], None]) -> None:
        self._file = os.fdopen(fd, "rb")
        self._on_event = on_event
        self._acks = acks
        self._kill = kill
        self._events: list[Event] = []
        self.judged_s = 0.0
        """Seconds spent answering events (judging, timing baselines, waiting for the GPU): the worker waits
        meanwhile, so none of it counts against its time limit."""
        self._answering_since: float | None = None
        self.failure: BaseException | None = None
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while line := self._file.readline(self._MAX_LINE):
            if len(self._events) >= self._MAX_EVENTS:
                continue
            event = decode(line)  # the worker writes only events of the protocol: anything else is Unreadable
            self._events.append(event)
            if self.failure is None:
                self._answer(event)

    def answering_s(self) -> float:
        """`judged_s`, with the answer in progress (a wait for the GPU can be long) counted up to now."""
        since = self._answering_since
        return self.judged_s + (time.monotonic() - since if since is not None else 0.0)

    def _answer(self, event: Event) -> None:
        started = self._answering_since = time.monotonic()
        try:
            reply = self._on_event(event)
        except BaseException as exc:  # a harness bug: stop the worker, re-raise in the caller
            self.failure = exc
            self._kill()
            return
        finally:
            self.judged_s += time.monotonic() - started
            self._answering_since = None
        if reply is not None:
            self._reply(reply)

    def _reply(self, line: str) -> None:
        try:
            self._acks.write(line + "\n")
            self._acks.flush()
        except (BrokenPipeError, OSError):
            pass

    def finish(self) -> list[Event]:
        self._thread.join(timeout=10)
        self._file.close()
        try:
            self._acks.close()
        except (BrokenPipeError, OSError):
            pass
        return self._events
