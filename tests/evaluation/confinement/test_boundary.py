"""Escape checks against the boundary itself: code run after `split` and `confine` with none of the in-process
layers (no static rules, no audit hook, no guards), as a candidate that had switched them all off would run.
What it tries must fail because the kernel says no."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import kbx
from kbx.evaluation.confinement.enter import default_hidden, for_this_process

SRC = str(Path(kbx.__file__).resolve().parent.parent)
PRELUDE = f"""
import json, os, sys
sys.path.insert(0, {SRC!r})
from kbx.evaluation.confinement.enter import ConfinementSpec, confine, split
spec = ConfinementSpec.from_json(json.loads(sys.argv[1]))
split(spec)
confine(spec, sys.argv[2])
del sys.path[0]
"""


@pytest.fixture
def job_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="kbx-job-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def confined(payload: str, job_dir: Path, *args: str, timeout: float = 60) -> dict:
    """Run `payload` confined as a candidate would be; it prints one JSON object, returned here."""
    spec = for_this_process(True, default_hidden())
    code = PRELUDE + textwrap.dedent(payload)
    done = subprocess.run(
        [sys.executable, "-I", "-c", code, json.dumps(spec.to_json()), str(job_dir), *args],
        capture_output=True, text=True, timeout=timeout, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_runs_as_pid_1_as_nobody_without_capabilities(job_dir):
    seen = confined(
        """
        status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\\t" in line)
        print(json.dumps({"pid": os.getpid(), "uid": os.getuid(), "cap": status["CapEff"].strip(),
                          "seccomp": status["Seccomp"].strip(), "nnp": status["NoNewPrivs"].strip(),
                          "procs": sorted(p for p in os.listdir("/proc") if p.isdigit())}))
        """,
        job_dir,
    )
    assert seen["pid"] == 1
    assert seen["uid"] != os.getuid() or os.geteuid() != 0
    assert int(seen["cap"], 16) == 0
    assert seen["seccomp"] == "2" and seen["nnp"] == "1"
    assert seen["procs"] == ["1"], "only its own namespace's processes are visible"


def test_cannot_read_the_memory_or_environment_of_any_outside_process(job_dir):
    target = os.getpid()
    seen = confined(
        """
        results = {}
        for path in [f"/proc/{sys.argv[3]}/mem", f"/proc/{sys.argv[3]}/environ", "/proc/1/../" + sys.argv[3] + "/mem"]:
            link = os.path.join(sys.argv[2], "link")
            if os.path.lexists(link):
                os.unlink(link)
            os.symlink(path, link)  # the path-string check of the audit hook would not see this
            try:
                with open(link, "rb") as f:
                    results[path] = "read %d bytes" % len(f.read(64))
            except OSError as exc:
                results[path] = type(exc).__name__
        print(json.dumps(results))
        """,
        job_dir, str(target),
    )
    assert all(not outcome.startswith("read") for outcome in seen.values()), seen


def test_cannot_write_outside_its_job_directory(job_dir, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("before")
    store = os.environ.get("KBX_STORE", "")
    targets = [kbx.__file__, str(Path(SRC).parent / "README.md"), str(outside), store, sys.executable,
               str(Path(socket.__file__)), "/etc/kbx-escape", "/usr/kbx-escape", str(Path.home() / "kbx-escape")]
    seen = confined(
        """
        results = {}
        for path in sys.argv[3:]:
            try:
                with open(path, "a") as f:
                    f.write("")
                results[path] = "written"
            except OSError as exc:
                results[path] = type(exc).__name__
        own = os.path.join(sys.argv[2], "mine.txt")
        open(own, "w").write("mine")
        results[own] = "written"
        print(json.dumps(results))
        """,
        job_dir, *targets,
    )
    assert [p for p, outcome in seen.items() if outcome == "written"] == [str(job_dir / "mine.txt")], seen
    assert outside.read_text() == "before"
    assert not Path("/etc/kbx-escape").exists() and not Path("/usr/kbx-escape").exists()


def test_kbx_source_and_the_checkout_are_absent(job_dir):
    seen = confined(
        """
        print(json.dumps({p: os.path.exists(p) for p in sys.argv[3:]}))
        """,
        job_dir, str(Path(kbx.__file__).parent), str(Path(SRC).parent / "README.md"), str(Path(SRC) / "kbx"),
        os.environ.get("KBX_STORE", "/nonexistent"),
    )
    assert not any(seen.values()), seen


def test_a_grandchild_holding_its_output_does_not_hold_the_reader(job_dir):
    spec = for_this_process(True, default_hidden())
    code = PRELUDE + textwrap.dedent(
        """
        if os.fork() == 0:
            os.setsid()
            import time
            time.sleep(30)  # holds stdout, the pipe the orchestrator reads
            os._exit(0)
        """
    )
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-I", "-c", code, json.dumps(spec.to_json()), str(job_dir)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    proc.stdout.read()  # EOF only once every holder of the pipe is gone
    proc.wait(timeout=30)
    assert time.monotonic() - start < 15


def test_no_network_at_all(job_dir):
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.settimeout(1.0)
    port = listener.getsockname()[1]
    seen = confined(
        """
        import socket
        results = {}
        for family, kind in [(socket.AF_INET, socket.SOCK_DGRAM), (socket.AF_INET6, socket.SOCK_DGRAM),
                             (socket.AF_NETLINK, socket.SOCK_RAW), (socket.AF_PACKET, socket.SOCK_RAW)]:
            try:
                s = socket.socket(family, kind)
                if family == socket.AF_INET:
                    s.sendto(b"escaped", ("127.0.0.1", int(sys.argv[3])))
                results[str(family)] = "sent"
            except OSError as exc:
                results[str(family)] = exc.errno
        print(json.dumps(results))
        """,
        job_dir, str(port),
    )
    assert "sent" not in seen.values(), seen
    with pytest.raises(TimeoutError):
        listener.recvfrom(64)


def test_seccomp_denies_process_inspection_and_namespace_changes(job_dir):
    seen = confined(
        """
        import ctypes, errno
        libc = ctypes.CDLL(None, use_errno=True)
        def errno_of(result):
            return ctypes.get_errno() if result == -1 else 0
        print(json.dumps({
            "ptrace": errno_of(libc.ptrace(0, 0, None, None)),               # PTRACE_TRACEME
            "unshare": errno_of(libc.unshare(0x00020000)),                    # CLONE_NEWNS
            "mount": errno_of(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)),
            "process_vm_readv": errno_of(libc.process_vm_readv(1, None, 0, None, 0, 0)),
            "pdeathsig": errno_of(libc.prctl(1, 0, 0, 0, 0)),
            "errno_EPERM": errno.EPERM,
        }))
        """,
        job_dir,
    )
    eperm = seen.pop("errno_EPERM")
    assert all(value == eperm for value in seen.values()), seen


def _python_for_nobody() -> str | None:
    """An interpreter an unprivileged user can run (the test's own may live in root's home)."""
    if os.geteuid() != 0:
        return None
    for candidate in (sys.executable, "/usr/bin/python3"):
        try:
            probe = subprocess.run([candidate, "-c", "import json"], capture_output=True, check=False,
                                   preexec_fn=_become_nobody)
        except OSError:  # not executable by that user
            continue
        if probe.returncode == 0:
            return candidate
    return None


def _become_nobody() -> None:
    os.setgroups([])
    os.setresgid(65534, 65534, 65534)
    os.setresuid(65534, 65534, 65534)


def test_without_root_the_candidate_is_confined_in_a_user_namespace(job_dir):
    python = _python_for_nobody()
    if python is None:
        pytest.skip("needs root (to become an unprivileged user) and an interpreter that user can run")
    os.chown(job_dir, 65534, 65534)
    payload = """
        status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\\t" in line)
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        print(json.dumps({"spec": spec.user_namespace, "pid": os.getpid(), "cap": status["CapEff"].strip(),
                          "seccomp": status["Seccomp"].strip(), "source": os.path.exists(sys.argv[3]),
                          "mount": libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)}))
    """
    code = PRELUDE.replace("spec = ConfinementSpec.from_json(json.loads(sys.argv[1]))",
                           "spec = for_this_process(True, default_hidden())").replace(
        "import ConfinementSpec, confine, split", "import confine, default_hidden, for_this_process, split")
    done = subprocess.run(
        [python, "-I", "-c", code + textwrap.dedent(payload), "{}", str(job_dir), str(Path(kbx.__file__).parent)],
        capture_output=True, text=True, timeout=60, check=False, preexec_fn=_become_nobody, env={"HOME": "/"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"spec": True, "pid": 1, "cap": "0000000000000000", "seccomp": "2", "source": False, "mount": -1}


def test_a_python_installation_under_tmp_stays_visible_and_read_only(job_dir, tmp_path):
    site = tmp_path / "site"  # pytest's tmp_path lives under /tmp, which the view replaces with a fresh tmpfs
    site.mkdir()
    (site / "kbx_probe_module.py").write_text("VALUE = 7\n")
    for path in (tmp_path, site):
        path.chmod(0o755)
    (site / "kbx_probe_module.py").chmod(0o644)
    code = f"import sys; sys.path.insert(0, {str(site)!r})\n" + PRELUDE + textwrap.dedent(
        """
        import kbx_probe_module
        try:
            open(kbx_probe_module.__file__, "a").close()
            writable = True
        except OSError:
            writable = False
        print(json.dumps({"value": kbx_probe_module.VALUE, "writable": writable}))
        """
    )
    spec = for_this_process(True, default_hidden())
    done = subprocess.run([sys.executable, "-I", "-c", code, json.dumps(spec.to_json()), str(job_dir)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"value": 7, "writable": False}
