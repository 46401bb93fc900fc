"""Runs that last (issue 5): the store behind `kbx run`, the cache, resuming a killed run, `kbx runs`, `kbx export`."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kbx.store.db import Store

pytestmark = pytest.mark.slow

TASKS = ["relu", "gelu", "erf", "add"]


def kbx(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbx.cli", *args, "--store", str(store)],
        capture_output=True, text=True, timeout=900,
    )


def _rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_a_second_identical_run_is_served_from_cache_and_says_so(tmp_path):
    store = tmp_path / "k.db"
    first = kbx(store, "run", "--tasks", "relu", "--device", "cpu", "--out", str(tmp_path / "a"))
    assert first.returncode == 0, first.stderr
    assert "served from the store's cache" not in first.stdout
    second = kbx(store, "run", "--tasks", "relu", "--device", "cpu", "--out", str(tmp_path / "b"))
    assert second.returncode == 0, second.stderr
    assert "1 served from the store's cache" in second.stdout and "cached from run" in second.stderr
    a, b = _rows(tmp_path / "a"), _rows(tmp_path / "b")
    assert [r["status"] for r in b] == [r["status"] for r in a] == ["PASSED"]
    assert b[0]["cached_from"] == json.loads((tmp_path / "a" / "run.json").read_text())["run_id"]
    fresh = kbx(store, "run", "--tasks", "relu", "--device", "cpu", "--no-cache", "--out", str(tmp_path / "c"))
    assert _rows(tmp_path / "c")[0]["cached_from"] is None, fresh.stderr


def _stored(store: Path) -> int:
    try:
        with sqlite3.connect(store) as db:
            return db.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


def test_a_run_killed_mid_way_resumes_without_losing_or_duplicating(tmp_path):
    store = tmp_path / "k.db"
    command = [sys.executable, "-m", "kbx.cli", "run", "--tasks", *TASKS, "--device", "cpu", "--jobs", "1",
               "--out", str(tmp_path / "killed"), "--store", str(store)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 600
    while _stored(store) < 1 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)  # the CLI, its trusted worker and any candidate worker
    process.wait()
    before = _stored(store)
    assert 1 <= before < len(TASKS), "kill the run after its first evaluation and before its last"
    with Store(store) as opened:
        (run,) = opened.runs()
        assert run.ended_at is None and run.secret_seed is None
    resumed = kbx(store, "run", "--resume", run.run_id[:6], "--out", str(tmp_path / "resumed"))
    assert resumed.returncode == 0, resumed.stderr
    assert f"{before} already done" in resumed.stderr
    rows = _rows(tmp_path / "resumed")
    assert sorted(r["task"] for r in rows) == sorted(TASKS)
    assert all(r["status"] == "PASSED" for r in rows)
    with Store(store) as opened:
        (run,) = opened.runs()
        assert run.evaluations == len(TASKS) and run.ended_at is not None and run.secret_seed is not None


def test_runs_list_show_and_export(tmp_path):
    store = tmp_path / "k.db"
    assert kbx(store, "run", "--tasks", "relu", "--device", "cpu", "--out", str(tmp_path / "a")).returncode == 0
    listing = kbx(store, "runs", "list", "--json")
    (run,) = json.loads(listing.stdout)
    assert run["method"] == "reference" and run["finished"] and run["evaluations"] == 1
    shown = kbx(store, "runs", "show", run["run_id"])
    assert shown.returncode == 0 and "Activation" in shown.stdout and str(run["secret_seed"]) in shown.stdout
    out = tmp_path / "export.jsonl"
    exported = subprocess.run(
        [sys.executable, "-m", "kbx.cli", "export", run["run_id"], "--out", str(out), "--store", str(store)],
        capture_output=True, text=True, timeout=300,
    )
    assert exported.returncode == 0, exported.stderr
    assert [json.loads(line)["task"] for line in out.read_text().splitlines()] == ["relu"]
    missing = kbx(store, "runs", "show", "nope")
    assert missing.returncode == 2 and missing.stderr.startswith("kbx: error: no run")
