"""A refine run killed mid-way resumes from its last stored iteration: no model call and no evaluation twice."""

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

import kbx
from kbx.store.db import Store
from tests.generate import replies
from tests.generate.server import Script, serve

pytestmark = pytest.mark.slow


def _count(store: Path, table: str) -> int:
    try:
        with sqlite3.connect(store) as db:
            return db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


def test_a_killed_refine_run_resumes_without_asking_or_evaluating_twice(tmp_path):
    store = tmp_path / "k.db"
    script = Script({"relu": [replies.WRONG, replies.BROKEN, replies.CORRECT]}, by_turn=True)
    with serve(script) as url:
        env = {**os.environ, "KBX_OPENAI_BASE_URL": url, "OPENAI_API_KEY": "test-key",
               "PYTHONPATH": str(Path(kbx.__file__).parents[1])}
        cli = [sys.executable, "-m", "kbx.cli", "run", "--store", str(store)]
        process = subprocess.Popen(
            [*cli, "--method", "refine", "--model", "openai:scripted", "--iterations", "3", "--tasks", "relu",
             "--device", "cpu", "--out", str(tmp_path / "killed")],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        deadline = time.monotonic() + 600
        while _count(store, "evaluations") < 1 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        asked_before, evaluated_before = _count(store, "generations"), _count(store, "evaluations")
        lost = len(script.requests) - asked_before  # answered, but killed before the reply was stored
        assert 1 <= evaluated_before < 3 and lost in (0, 1)
        with Store(store) as opened:
            (run,) = opened.runs()
        resumed = subprocess.run([*cli, "--resume", run.run_id[:6], "--out", str(tmp_path / "resumed")],
                                 env=env, capture_output=True, text=True, timeout=900)
    assert resumed.returncode == 0, resumed.stderr
    assert len(script.requests) == 3 + lost, "stored generations are not asked again"
    assert _count(store, "generations") == _count(store, "evaluations") == 3
    rows = [json.loads(line) for line in (tmp_path / "resumed" / "results.jsonl").read_text().splitlines()]
    assert [(r["candidate"], r["status"]) for r in rows] == [
        ("relu#s0.i0", "MISMATCH"), ("relu#s0.i1", "COMPILE_ERROR"), ("relu#s0.i2", "PASSED")]
    generation = json.loads((tmp_path / "resumed" / "run.json").read_text())["generation"]
    assert generation["reused_generations"] == asked_before
    assert generation["new_model_calls"] == 3 - asked_before
    assert generation["chains"][0]["best"] == "relu#s0.i2"
