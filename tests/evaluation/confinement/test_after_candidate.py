"""After a run of candidates that try to escape: no process of theirs remains, nothing outside their scratch
directories changed but what the orchestrator wrote (its run folder and the store), and every stored row is one the
orchestrator wrote for a candidate it was given."""

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


def nobodys_processes() -> list[str]:
    """Processes running as a candidate's UID (kbx runs them as nobody when it runs as root), each as its pid and
    command line. The comparison assumes no other kbx run starts one meanwhile, as in CI, where tests run one at a
    time."""
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
    done = subprocess.run(
        [sys.executable, "-m", "kbx.cli", "eval", str(sources), "--tasks", "relu", "--device", "cpu",
         "--out", str(out), "--store", str(store), "--no-cache"],
        capture_output=True, text=True, timeout=900, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert listing(CHECKOUT) == before_checkout, "a file of the checkout changed"
    assert sorted(listing(out)) == ["results.jsonl", "run.json"]
    assert sorted(listing(store.parent)) == ["kbx.db"]
    # New ones only: another kbx run on the same machine may end one of its own candidates meanwhile (a helper's
    # evaluation did, in a local CI run, 2026-11-28)
    assert sorted(set(nobodys_processes()) - set(before_processes)) == []
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(rows) == len(ESCAPES) and all(r["status"] != "PASSED" for r in rows), rows
    assert all(r["confinement"].startswith("namespaces") for r in rows)
    with sqlite3.connect(store) as db:
        stored = db.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]
    assert stored == len(ESCAPES)
