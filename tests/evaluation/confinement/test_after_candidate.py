"""After a run of candidates that try to escape: no process of theirs remains, nothing outside their scratch
directories changed but what the orchestrator wrote (its run folder and the store), and every stored row is one the
orchestrator wrote for a candidate it was given.

"No process remains" is checked on the run's own descendants: the run is started under a child subreaper, so
whatever it leaves running (a detached grandchild included) is re-parented to the subreaper and found there, even
while other kbx runs (another test process, a helper's evaluation) start candidates of their own. Run alone, the
test also checks that no new process of the candidates' UID appeared anywhere."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import kbx

CHECKOUT = Path(kbx.__file__).resolve().parents[2]
EXPLOITS = CHECKOUT / "tests" / "exploits"
ESCAPES = ("symlink_to_other_process", "write_into_installed_package", "forged_result_channel", "kill_parent")
_SKIPPED = {"__pycache__", ".pytest_cache", ".ruff_cache", ".git", "kbx-out"}


def listing(root: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime) of every file under `root`, bytecode caches aside (the orchestrator writes those itself)."""
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIPPED]
        for name in files:
            path = Path(folder, name)
            stat = path.lstat()
            found[str(path.relative_to(root))] = (stat.st_size, stat.st_mtime_ns)
    return found


SUBREAPER = """
import ctypes, json, os, signal, subprocess, sys
if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
    sys.exit("prctl(PR_SET_CHILD_SUBREAPER) failed")
with open(sys.argv[1], "w") as err:
    code = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err, check=False).returncode
parents = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        continue
    state, ppid = stat[stat.rindex(")") + 2:].split()[:2]
    if state != "Z":
        parents[int(pid)] = int(ppid)
left, frontier = [], [os.getpid()]
while frontier:
    children = [pid for pid, ppid in parents.items() if ppid in frontier]
    left += children
    frontier = children
commands = []
for pid in left:
    try:
        commands.append(f"{pid} " + open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\\0", b" ").decode()[:120])
        os.kill(pid, signal.SIGKILL)
    except OSError:
        continue
while True:  # reap them
    try:
        os.wait()
    except ChildProcessError:
        break
print(json.dumps({"returncode": code, "left": commands}))
"""
"""Runs a command (argv 2:) as the child of a child subreaper, its stderr to the file argv 1; prints its exit status
and every process of its descendants still alive after it exited (then kills them)."""


def nobodys_processes() -> list[str]:
    """Processes running as a candidate's UID (kbx runs them as nobody when it runs as root), each as its pid and
    command line. Meaningful only while no other kbx run starts candidates, so only when tests run one at a time."""
    mine = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}").st_uid == 65534:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
                mine.append(f"{pid} {command}")
        except OSError:
            continue
    return mine


@pytest.mark.slow
def test_escaping_candidates_leave_nothing_behind(tmp_path):
    sources = tmp_path / "sources"
    sources.mkdir()
    for name in ESCAPES:
        shutil.copy(EXPLOITS / f"{name}.py", sources / f"{name}.py")
    store, out = tmp_path / "store" / "kbx.db", tmp_path / "out"
    before_checkout, before_processes = listing(CHECKOUT), nobodys_processes()
    stderr = tmp_path / "stderr.txt"
    done = subprocess.run(
        [sys.executable, "-c", SUBREAPER, str(stderr), sys.executable, "-m", "kbx.cli", "eval", str(sources),
         "--tasks", "relu", "--device", "cpu", "--out", str(out), "--store", str(store), "--no-cache"],
        capture_output=True, text=True, timeout=900, check=True,
    )
    report = json.loads(done.stdout)
    assert report["returncode"] == 0, stderr.read_text()[-2000:]
    assert report["left"] == [], "processes of the run outlived it"
    assert listing(CHECKOUT) == before_checkout, "a file of the checkout changed"
    assert sorted(listing(out)) == ["results.jsonl", "run.json"]
    assert sorted(listing(store.parent)) == ["kbx.db"]
    if "PYTEST_XDIST_WORKER" not in os.environ:  # new ones only: a helper's evaluation ended one of its own meanwhile
        assert sorted(set(nobodys_processes()) - set(before_processes)) == []
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == len(ESCAPES) and all(r["status"] != "PASSED" for r in rows), rows
    assert all(r["confinement"].startswith("namespaces") for r in rows)
    with sqlite3.connect(store) as db:
        stored = db.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]
    assert stored == len(ESCAPES)


def test_the_subreaper_finds_a_detached_grandchild(tmp_path):
    """The check above can fail: a command that leaves a detached process behind is reported with it."""
    done = subprocess.run(
        [sys.executable, "-c", SUBREAPER, str(tmp_path / "stderr.txt"),
         "sh", "-c", "setsid sleep 60 & sleep 0.5; exit 3"],
        capture_output=True, text=True, timeout=60, check=True,
    )
    report = json.loads(done.stdout)
    assert report["returncode"] == 3
    assert [command.split(" ", 1)[1].strip() for command in report["left"]] == ["sleep 60"]
