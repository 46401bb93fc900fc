"""The bad-input table: each user mistake is exit status 2, one `kbx: error:` line on stderr, no traceback, and
nothing written to the store."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kbx.tasks.registry import default_suite_root

SOLUTION = str(default_suite_root() / "Activation" / "relu" / "solution.py")


def _not_sqlite(tmp: Path) -> str:
    path = tmp / "notes.txt"
    path.write_text("not a database\n" * 200)
    return str(path)


CASES = {
    "store is a directory": lambda tmp: ["eval", SOLUTION, "--device", "cpu", "--store", str(tmp)],
    "store is not SQLite": lambda tmp: ["eval", SOLUTION, "--device", "cpu", "--store", _not_sqlite(tmp)],
    "missing source": lambda tmp: ["eval", str(tmp / "nope.py")],
    "unknown task": lambda tmp: ["run", "--tasks", "not_a_task"],
    "misspelt task": lambda tmp: ["run", "--tasks", "sofmax"],
    "no timing rounds": lambda tmp: ["run", "--tasks", "relu", "--timing-rounds", "0"],
    "shard out of range": lambda tmp: ["run", "--shard", "3/3"],
    "no GPUs": lambda tmp: ["run", "--gpus", "0"],
    "unknown run": lambda tmp: ["runs", "show", "nope"],
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_a_user_mistake_is_one_line_and_exit_2(tmp_path, case):
    store = tmp_path / "kbx.db"
    args = CASES[case](tmp_path)
    if "--store" not in args:
        args += ["--store", str(store)]
    if args[0] in ("eval", "run"):
        args += ["--out", str(tmp_path / "out")]
    result = subprocess.run([sys.executable, "-m", "kbx.cli", *args], capture_output=True, text=True, timeout=300)
    errors = [line for line in result.stderr.splitlines() if line.startswith(("kbx: error:", "kbx run: error:"))]
    assert result.returncode == 2, result.stderr[-2000:]
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert not (tmp_path / "out").exists()
    if store.exists():  # opened, perhaps, but no run began
        import sqlite3

        with sqlite3.connect(store) as db:
            assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0
