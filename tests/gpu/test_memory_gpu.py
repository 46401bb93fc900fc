"""On a GPU: a bench workload that needs more memory than the GPU has (`min_gpu_gib`) is left out, and the
evaluation says so; the others are judged and timed as usual. An output element a kernel never writes is NaN there too
(the fill of new memory, `kbx.evaluation.candidate.fresh_memory`)."""

from __future__ import annotations

import shutil

import pytest

from kbx.candidates.source import Candidate
from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.meta import read_task

pytestmark = pytest.mark.gpu

HUGE = '{"name": "bench_huge", "role": "bench", "min_gpu_gib": 100000, "params": {"shape": [65537, 32768]}},'


def test_a_workload_too_big_for_this_gpu_is_left_out_and_named(suite, tmp_path):
    folder = tmp_path / "Activation" / "relu"
    shutil.copytree(suite["relu"].path, folder)
    task_file = folder / "task.py"
    bench = '{"name": "bench", "role": "bench", "params": {"shape": [16384, 32768]}},'
    assert bench in task_file.read_text()
    task_file.write_text(task_file.read_text().replace(bench, f"{bench}\n        {HUGE}"))
    task = read_task(folder)
    assert [w.name for w in task.workloads_for(("bench",))] == ["bench", "bench_huge"]
    settings = TimingSettings(rounds=2, budget_s=0.2, min_samples=10)
    with Evaluator("cuda", Limits(timeout_s=300), timing=settings) as evaluator:
        evaluation = evaluator.evaluate(task, Candidate("solution", "relu", (folder / "solution.py").read_text()))
    row = evaluation.to_json()
    assert row["status"] == "PASSED", row["message"]
    assert row["message"].startswith("not run on this GPU (") and "bench_huge" in row["message"]
    assert {c["workload"] for c in row["cases"] if c["role"] == "bench"} == {"bench"}
    assert {w["workload"] for w in row["performance"]["workloads"]} == {"bench"}


def test_on_a_gpu_an_output_element_a_kernel_never_writes_is_nan_and_a_timed_solution_still_passes(suite):
    # relu's wrong/stores_positives_only leaves its zeros to torch.empty: fresh driver memory is zeroed, so without
    # the fill of new memory (kbx.evaluation.candidate.fresh_memory) the verdict rests on the allocator. The solution
    # is timed as well: the fills are on during correctness calls only, and the launch trace allows them.
    task = suite["relu"]
    wrong = task.solution_file.parent / "wrong" / "stores_positives_only.py"
    settings = TimingSettings(rounds=2, budget_s=0.2, min_samples=10)
    with Evaluator("cuda", Limits(timeout_s=300), timing=settings) as evaluator:
        failed = evaluator.evaluate(task, Candidate(str(wrong), task.name, wrong.read_text()))
        timed = evaluator.evaluate(task, Candidate("solution", task.name, task.solution_file.read_text()))
    assert failed.status.value == "MISMATCH" and "got nan, expected 0" in failed.message
    assert timed.status.value == "PASSED", timed.message
    assert timed.to_json()["performance"]["workloads"]
