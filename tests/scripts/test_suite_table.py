"""`scripts/suite_table.py` (docs/suite.md) gives each task's worst bench workload and the suite's geometric means
with and without the tasks that name their baseline uncompetitive, from GPU rows of the code as it is now."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from kbx.candidates.source import content_hash
from kbx.tasks.registry import default_suite_root, load_suite

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "suite_table.py"


def _script():
    spec = importlib.util.spec_from_file_location("suite_table", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(task, eager: float, compile_: float, slots: dict[str, float]) -> dict:
    """A compacted GPU row (`scripts/compact_rows.py`) of the task's solution as it is now."""
    return {"task": task.name, "status": "PASSED", "candidate_hash": content_hash(task.solution_file.read_text()),
            "task_version": task.version, "speedup_eager": eager, "speedup_compile": compile_,
            "workloads": [{"workload": name, "dtype": "float32", "speedup_eager": s, "speedup_compile": s}
                          for name, s in slots.items()]}


def test_the_summary_gives_the_geomeans_without_uncompetitive_tasks_and_the_worst_workload():
    script = _script()
    tasks = {t.name: t for t in load_suite(default_suite_root())}
    chosen = [tasks["relu"], tasks["gelu"], tasks["qr"]]
    measured = {"relu": _row(tasks["relu"], 2.0, 1.0, {"bench": 2.0}),
                "gelu": _row(tasks["gelu"], 0.5, 1.0, {"bench": 0.25, "bench_tanh": 1.0}),
                "qr": _row(tasks["qr"], 1000.0, 1000.0, {"bench": 1000.0})}
    summary = " ".join(script._summary(chosen, measured))
    # (2 * 0.5 * 1000) ** (1/3) = 10 with qr; sqrt(2 * 0.5) = 1 without it
    assert "10.00x vs eager, 10.00x vs torch.compile; slower than eager: gelu." in summary
    assert "Without the tasks that name their timed baseline uncompetitive (qr, reasons below the table): " \
           "1.00x vs eager, 1.00x vs torch.compile." in summary
    assert script._worst(measured["gelu"], "eager") == "0.25 (bench/float32)"
    assert script._worst({}, "compile") == "not run"
    assert script._baseline(tasks["matmul_tf32"]) == "baseline(), TF32"
    assert script._baseline(tasks["qr"]) == "reference, uncompetitive"


def test_timed_runs_count_distinct_runs_of_the_code_as_it_is_now_and_the_failures():
    script = _script()
    relu = {t.name: t for t in load_suite(default_suite_root())}["relu"]
    passed = [{**_row(relu, 1.0, 1.0, {"bench": 1.0}), "run": run} for run in ("a", "b", "b")]
    failed = {**_row(relu, 1.0, 1.0, {}), "run": "c", "status": "MISMATCH", "speedup_eager": None}
    older = {**_row(relu, 1.0, 1.0, {}), "run": "d", "candidate_hash": "an earlier solution"}
    assert script._runs_passed(relu, passed) == (2, 2)  # run b's two rows count once
    assert script._runs_passed(relu, [*passed, failed, older]) == (2, 3)
    line = script._runs_line([relu], {"relu": [*passed, failed]})
    assert line.endswith(": 1 solution in 2 runs; failed in a run: relu.")
