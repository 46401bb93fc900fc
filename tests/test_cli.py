"""The CLI: machine-readable listings, one-line user errors, and results.jsonl from `kbx eval`/`kbx run`."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kbx.tasks.registry import default_suite_root

GELU = default_suite_root() / "Activation" / "gelu"


def kbx(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kbx.cli", *args], capture_output=True, text=True, timeout=900, cwd=cwd
    )


def test_tasks_list_json_has_the_design_fields():
    result = kbx("tasks", "list", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert {"name", "category", "level", "dtypes", "workloads"} <= rows[0].keys()
    assert "gelu" in {r["name"] for r in rows}


def test_tasks_list_does_not_import_torch():
    code = "import sys; from kbx.cli import main; main(['tasks', 'list']); assert 'torch' not in sys.modules"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_tasks_show_prints_signature_contract_and_reference():
    result = kbx("tasks", "show", "gelu")
    assert result.returncode == 0
    for text in ("gelu(input, approximate='none')", "contract:", "u_out = 5.96e-08 (float32), 0.00391 (bfloat16)",
                 "def reference"):
        assert text in result.stdout


def test_broken_task_gets_one_clear_line(tmp_path):
    folder = tmp_path / "Activation" / "gelu"
    shutil.copytree(GELU, folder)
    task_py = folder / "task.py"
    task_py.write_text(task_py.read_text().replace('"level": 1', '"level": "one"'))
    for args in (["tasks", "list"], ["tasks", "validate"]):
        result = kbx(*args, "--suite", str(tmp_path))
        assert result.returncode != 0
        errors = [line for line in result.stderr.splitlines() if line.startswith("kbx: error:")]
        assert len(errors) == 1 and str(task_py) in errors[0] and "level" in errors[0]
        assert "Traceback" not in result.stderr


def test_unknown_task_and_missing_source_are_user_errors(tmp_path):
    result = kbx("eval", str(tmp_path / "nope.py"), "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and result.stderr.strip().startswith("kbx: error:")
    result = kbx("run", "--tasks", "not_a_task", "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and "unknown task" in result.stderr and "Traceback" not in result.stderr
    result = kbx("run", "--tasks", "relu", "--timing-rounds", "0", "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and "--timing-rounds" in result.stderr and "Traceback" not in result.stderr
    result = kbx("run", "--tasks", "relu", "--timing-warmup", "-1", "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and "--timing-warmup" in result.stderr and "Traceback" not in result.stderr
    result = kbx("run", "--shard", "3/3", "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and "0 <= K < N" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_reference_that_fails_on_a_case_costs_that_evaluation_alone(tmp_path):
    """The reference raising on one workload (as cuSOLVER did on a large batch) is a defect of the task: its
    evaluation is named, not stored, and the run finishes every other one, then exits 1 with one error line."""
    suite = tmp_path / "suite"
    for name in ("gelu", "relu"):
        shutil.copytree(GELU.parent / name, suite / "Activation" / name)
    task_py = suite / "Activation" / "gelu" / "task.py"
    task_py.write_text(task_py.read_text().replace(
        "    return F.gelu(input, approximate=approximate)",
        "    if input.numel() == 4097:\n        raise RuntimeError('cusolver error: INTERNAL_ERROR (simulated)')\n"
        "    return F.gelu(input, approximate=approximate)",
    ))
    out = tmp_path / "out"
    result = kbx("run", "--suite", str(suite), "--device", "cpu", "--out", str(out), "--store", str(tmp_path / "k.db"))
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "NOT JUDGED" in result.stderr
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("kbx: error:")]
    assert "1 evaluation(s) could not be judged" in error and "gelu" in error and "check_tail" in error
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [(r["task"], r["status"]) for r in rows] == [("relu", "PASSED")]
    (unjudged,) = json.loads((out / "run.json").read_text())["unjudged"]
    assert "check_tail" in unjudged and "INTERNAL_ERROR" in unjudged


def test_an_interrupted_run_keeps_what_it_finished_and_can_be_resumed(tmp_path):
    """Ctrl-C, or `timeout -s INT` on a device call, reaches the whole process group: the run writes the rows it
    stored and a run.json marked interrupted, exits 130 with one line (no worker's traceback), and `--resume`
    evaluates the rest."""
    out, store = tmp_path / "out", str(tmp_path / "k.db")
    tasks = ["relu", "gelu", "sigmoid", "tanh", "silu", "elu"]
    run = subprocess.Popen(
        [sys.executable, "-m", "kbx.cli", "run", "--device", "cpu", "--jobs", "1", "--tasks", *tasks,
         "--out", str(out), "--store", store],
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        # A shell's background job (as CI may be) ignores SIGINT, and Python then installs no KeyboardInterrupt.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert run.stderr is not None
    lines = []
    for line in run.stderr:  # interrupt once the first evaluation is stored
        lines.append(line)
        if line.startswith("[1/"):
            os.killpg(run.pid, signal.SIGINT)
            break
    lines += run.stderr.readlines()
    assert run.wait(timeout=120) == 130, "".join(lines)
    assert lines[-1] == "kbx: interrupted\n" and not any("Traceback" in line for line in lines), "".join(lines)
    info = json.loads((out / "run.json").read_text())
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert info["interrupted"] and 1 <= len(rows) < len(tasks)
    resumed = kbx("run", "--resume", info["run_id"], "--device", "cpu", "--out", str(tmp_path / "again"),
                  "--store", store)
    assert resumed.returncode == 0, resumed.stderr
    again = [json.loads(line) for line in (tmp_path / "again" / "results.jsonl").read_text().splitlines()]
    assert sorted(r["task"] for r in again) == sorted(tasks)
    assert "interrupted" not in json.loads((tmp_path / "again" / "run.json").read_text())


@pytest.mark.slow
def test_eval_writes_results_and_a_summary(tmp_path):
    out = tmp_path / "out"
    result = kbx("eval", str(GELU / "solution.py"), str(GELU / "wrong"), "--out", str(out), "--device", "cpu")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    statuses = sorted(r["status"] for r in rows)
    assert statuses == ["MISMATCH"] * (len(rows) - 1) + ["PASSED"]
    assert all(r["task"] == "gelu" and r["device"] == "cpu" for r in rows)
    assert "exe_ok" in result.stdout and "Activation" in result.stdout


def test_asking_for_a_gpu_where_there_is_none_is_one_line(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    result = kbx("eval", str(GELU / "solution.py"), "--device", "cuda", "--out", str(tmp_path / "o"))
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.stderr.strip() == "kbx: error: --device cuda was asked for but torch sees no CUDA GPU"


def test_a_run_that_evaluated_nothing_does_not_exit_0(tmp_path):
    (tmp_path / "empty").mkdir()
    malformed = tmp_path / "replies.jsonl"
    malformed.write_text('{"no task": 1}\nnot json\n')
    mystery = tmp_path / "mystery.py"  # no task of that name, and no task named in it
    mystery.write_text("def f(x):\n    return x\n")
    for source in (tmp_path / "empty", malformed, mystery):
        result = kbx("eval", str(source), "--device", "cpu", "--out", str(tmp_path / source.stem),
                     "--store", str(tmp_path / "kbx.db"))
        assert result.returncode == 1, result.stderr[-2000:]
        assert "kbx: error: the run evaluated nothing" in result.stderr and "Traceback" not in result.stderr


def test_a_store_that_is_no_database_is_one_line(tmp_path):
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("these are my notes, not a database\n" * 100)
    for store in (tmp_path, not_sqlite):
        result = kbx("eval", str(GELU / "solution.py"), "--device", "cpu", "--store", str(store),
                     "--out", str(tmp_path / "o"))
        assert result.returncode == 2, result.stderr[-2000:]
        assert "Traceback" not in result.stderr and result.stderr.strip().startswith("kbx: error: the store")


def test_version_and_a_gpu_count_below_one():
    import kbx as package

    version = kbx("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"kbx {package.__version__}"
    no_gpus = kbx("run", "--gpus", "0")
    assert no_gpus.returncode == 2 and "--gpus: must be at least 1" in no_gpus.stderr


def test_sigusr1_prints_every_threads_stack_and_a_captured_stderr_is_no_error(tmp_path, monkeypatch):
    import faulthandler
    import io
    import os
    import signal
    import time

    from kbx.cli import _stacks_on_request

    monkeypatch.setattr("sys.stderr", io.StringIO())  # no file descriptor: nothing registered, nothing raised
    _stacks_on_request()
    with open(tmp_path / "stderr", "w") as stream:
        monkeypatch.setattr("sys.stderr", stream)
        _stacks_on_request()
        try:
            os.kill(os.getpid(), signal.SIGUSR1)
            time.sleep(0.2)
        finally:
            faulthandler.unregister(signal.SIGUSR1)
    assert "test_sigusr1_prints_every_threads_stack" in (tmp_path / "stderr").read_text()
