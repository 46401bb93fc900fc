"""A store of synthetic runs, written through `Store`'s public API, whose metrics are worked out by hand in the tests.

Tasks: relu, gelu (Activation), sum (Reduce), matmul (MatrixMultiply).
- oneshot:model-a on an H100: relu PASSED 2.0x, gelu PASSED 0.8x, sum MISMATCH, matmul missing.
- the same kernels of model-a timed again on an H200: relu 2.4x, gelu 0.8x (cross-hardware).
- oneshot:model-b on an H100: relu PASSED 1.2x, gelu COMPILE_ERROR, sum PASSED 3.0x, matmul RUNTIME_ERROR.
- sample:model-c (3 samples a task, CPU, untimed): relu 2/3 correct, gelu 0/3, sum 3/3, matmul 1/3.
- refine:model-d (iterations 0-2, one chain a task): relu fail/pass/pass (rescued), gelu pass x3 (persistent),
  sum pass/fail (a regression), matmul fail x3.
- `fair_store` (another store): oneshot:model-f on an H100: relu PASSED 1.6x eager / 1.2x compile, its slots
  bench/float32 2.0x / 1.5x and bench/float16 0.8x / 1.0x; gelu PASSED 0.8x / 0.6x (one slot); sum PASSED
  100x / 90x with its baseline named uncompetitive (SLOW_LIBRARY); matmul MISMATCH.
Model calls: run-c and run-d store one generation per candidate (the prompt, earlier replies and feedback, the
reply, tokens): run-d's are priced at $0.001 each (11 calls), one of run-c's is unpriced.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kbx.analysis.data import TaskOutcome
from kbx.store.db import Store

CATEGORIES = {"relu": "Activation", "gelu": "Activation", "sum": "Reduce", "matmul": "MatrixMultiply"}
H100, H200 = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
CALL_OK = {"PASSED", "MISMATCH"}


def row(task: str, status: str, *, code: str = "", eager: float | None = None, gpu: str | None = None,
        **provenance: Any) -> dict[str, Any]:
    """A results.jsonl row as the runner writes it, with what the report's drill-down reads."""
    digest = f"h-{task}-{code or status}"
    timed = eager is not None
    mismatch = [{"workload": "check", "role": "check", "dtype": "float32", "seed": "public", "status": "MISMATCH",
                 "message": "3 of 129 elements differ", "outputs": [
                     {"status": "MISMATCH", "message": "3 of 129 elements differ", "max_abs_error": 0.5,
                      "max_rel_error": 0.25, "mismatches": 3, "total": 129,
                      "first": [{"index": [127], "got": 1.5, "expected": 1.0}], "against": "reference"}],
                 "mutated_inputs": []}]
    return {
        "task": task, "category": CATEGORIES[task], "candidate": f"{task}-{code or status}.py",
        "candidate_hash": digest, "status": status, "call_ok": status in CALL_OK, "exe_ok": status == "PASSED",
        "device": "cuda" if gpu else "cpu", "stage": "performance" if timed else "correctness",
        "message": "" if status == "PASSED" else f"{status.lower()} in {task}",
        "speedup_eager": eager, "speedup_compile": None if eager is None else eager * 0.75,
        "sol_fraction": None if eager is None else eager / 4, "task_version": "v1", "elapsed_s": 1.0, "phases": {},
        "cases": mismatch if status == "MISMATCH" else [], "error": "Traceback: boom" if status.endswith("ERROR")
        else "", "worker_output": "", "provenance": {"method": "test", **provenance},
        "environment": {"device": "cuda", "gpu": gpu} if gpu else {"device": "cpu", "triton_mode": "interpreter"},
        "performance": None if not timed else {"workloads": [
            {"workload": "bench", "dtype": "float32", "median_ms": {"candidate": 1.0, "eager": eager,
                                                                    "compile": eager * 0.75}}]},
    }


def _run(store: Store, run_id: str, method: str, model: str, rows: list[dict[str, Any]], device: str = "cuda",
         ) -> None:
    store.begin_run(run_id, method=method, model=model, device=device, git_sha="abc", harness="0.1.0+t",
                    config={}, environment={}, secret_seed=7)
    for r in rows:
        store.add_evaluation(run_id, r, f"# kernel for {r['task']}\ndef {r['task']}(x):\n    return x\n",
                             f"key-{run_id}-{r['candidate']}")
        if method in ("sample", "refine"):
            priced = run_id != "run-c" or r["candidate"] != "sum-c2.py"
            store.add_generation(run_id, generation(r, model, priced))
    store.end_run(run_id, 1.0)


def generation(r: dict[str, Any], model: str, priced: bool = True) -> dict[str, Any]:
    """The stored model call that produced row `r`'s candidate: the task's prompt, then each earlier reply and the
    feedback on it."""
    iteration = r["provenance"].get("iteration", 0)
    messages = [{"role": "user", "content": f"PROMPT: write a Triton kernel for {r['task']}"}]
    for i in range(iteration):
        messages += [{"role": "assistant", "content": f"reply {i} for {r['task']}"},
                     {"role": "user", "content": f"FEEDBACK {i}: your kernel for {r['task']} was judged"}]
    return {"task": r["task"], "sample": r["provenance"].get("sample", 0), "iteration": iteration,
            "candidate": r["candidate"], "candidate_hash": r["candidate_hash"], "parent_hash": None,
            "provider": "test", "model": model, "messages": messages, "reply": f"reply {iteration} for {r['task']}",
            "finish_reason": "stop", "usage": {"prompt_tokens": 100 * (iteration + 1), "completion_tokens": 50,
                                               "cost_usd": 0.001 if priced else None},
            "attempts": 1, "latency_s": 0.5, "raw": {}}


def build_store(path: Path) -> Path:
    with Store(path) as store:
        _run(store, "run-a-h100", "oneshot", "model-a", [
            row("relu", "PASSED", eager=2.0, gpu=H100), row("gelu", "PASSED", eager=0.8, gpu=H100),
            row("sum", "MISMATCH", gpu=H100)])
        _run(store, "run-a-h200", "oneshot", "model-a", [
            row("relu", "PASSED", eager=2.4, gpu=H200), row("gelu", "PASSED", eager=0.8, gpu=H200)])
        _run(store, "run-b", "oneshot", "model-b", [
            row("relu", "PASSED", code="b", eager=1.2, gpu=H100), row("gelu", "COMPILE_ERROR", gpu=H100),
            row("sum", "PASSED", code="b", eager=3.0, gpu=H100), row("matmul", "RUNTIME_ERROR", gpu=H100)])
        samples = {"relu": [1, 1, 0], "gelu": [0, 0, 0], "sum": [1, 1, 1], "matmul": [0, 1, 0]}
        _run(store, "run-c", "sample", "model-c", [
            row(task, "PASSED" if ok else "MISMATCH", code=f"c{i}", sample=i)
            for task, oks in samples.items() for i, ok in enumerate(oks)], device="cpu")
        chains = {"relu": [0, 1, 1], "gelu": [1, 1, 1], "sum": [1, 0], "matmul": [0, 0, 0]}
        _run(store, "run-d", "refine", "model-d", [
            row(task, "PASSED" if ok else "MISMATCH", code=f"d{i}", eager=1.0 + i if ok else None,
                gpu=H100, sample=0, iteration=i, response=f"reply {i} for {task}")
            for task, oks in chains.items() for i, ok in enumerate(oks)], device="cuda")
    return path


@pytest.fixture()
def store_path(tmp_path: Path) -> Path:
    return build_store(tmp_path / "analysis.db")


SLOW_LIBRARY = "a slow library routine"


def timed_row(task: str, slots: dict[str, tuple[float, float | None]], *, uncompetitive: str = "",
              eager: float, compile_: float) -> dict[str, Any]:
    """A timed PASSED row whose performance holds one entry per `workload/dtype` slot: (vs eager, vs compile)."""
    base = row(task, "PASSED", eager=eager, gpu=H100)
    workloads = [{"workload": name.split("/")[0], "dtype": name.split("/")[1], "speedup_eager": e,
                  "speedup_compile": c} for name, (e, c) in slots.items()]
    baseline = {"eager": "reference", "compile": "torch.compile(reference)", "tf32": False,
                "uncompetitive": uncompetitive}
    return {**base, "speedup_compile": compile_, "performance": {"workloads": workloads, "baseline": baseline}}


@pytest.fixture()
def fair_store(tmp_path: Path) -> Path:
    path = tmp_path / "fair.db"
    with Store(path) as store:
        _run(store, "run-f", "oneshot", "model-f", [
            timed_row("relu", {"bench/float32": (2.0, 1.5), "bench/float16": (0.8, 1.0)}, eager=1.6, compile_=1.2),
            timed_row("gelu", {"bench/bfloat16": (0.8, 0.6)}, eager=0.8, compile_=0.6),
            timed_row("sum", {"bench/float32": (100.0, 90.0)}, uncompetitive=SLOW_LIBRARY, eager=100.0,
                      compile_=90.0),
            row("matmul", "MISMATCH", gpu=H100)])
    return path


def kernelbench_row(task: str, status: str, rule: str | None, *, eager: float | None = None) -> dict[str, Any]:
    """A row of a KernelBench problem, with KernelBench's rule's verdict when `rule` is given."""
    base = row("relu", status, eager=eager, gpu=H100)
    verdict = None if rule is None else {"verdict": rule, "passed": 5 if rule == "PASSED" else 0, "trials": 5,
                                         "message": "" if rule == "PASSED" else f"{rule.lower()} by the rule in {task}"}
    return {**base, "task": task, "category": "Fusion" if task.startswith("level2") else "Math",
            "candidate": f"{task}.py", "candidate_hash": f"h-{task}", "kernelbench": verdict}


@pytest.fixture()
def kernelbench_store(tmp_path: Path) -> Path:
    """run-kb: a KernelBench run with the rule recorded (speedups vs eager; vs compile 0.75 of them):
    level1/1_A PASSED 2.5x, rule PASSED; level1/2_B PASSED 0.9x, rule FAILED; level1/3_E PASSED 1.6x, rule
    NOT_JUDGED; level2/1_C MISMATCH, rule PASSED; level2/2_D RUNTIME_ERROR, rule FAILED. run-kb-plain: the same
    suite without the rule (level1/1_A PASSED untimed). run-native: a kbx suite run (relu PASSED 2.0x)."""
    path = tmp_path / "kernelbench.db"
    suite = {"selection": {"suite": "kernelbench:/checkout", "tasks": [], "category": None, "level": None}}
    with Store(path) as store:
        for run_id, rows, config in (
            ("run-kb", [kernelbench_row("level1/1_A", "PASSED", "PASSED", eager=2.5),
                        kernelbench_row("level1/2_B", "PASSED", "FAILED", eager=0.9),
                        kernelbench_row("level1/3_E", "PASSED", "NOT_JUDGED", eager=1.6),
                        kernelbench_row("level2/1_C", "MISMATCH", "PASSED"),
                        kernelbench_row("level2/2_D", "RUNTIME_ERROR", "FAILED")], suite),
            ("run-kb-plain", [kernelbench_row("level1/1_A", "PASSED", None)], suite),
            ("run-native", [row("relu", "PASSED", eager=2.0, gpu=H100)], {}),
        ):
            store.begin_run(run_id, method="oneshot", model=run_id, device="cuda", git_sha="abc",
                            harness="0.1.0+t", config=config, environment={}, secret_seed=7)
            for r in rows:
                store.add_evaluation(run_id, r, "class ModelNew: pass\n", f"key-{run_id}-{r['candidate']}")
            store.end_run(run_id, 1.0)
    return path


def outcome(task: str, category: str = "Activation", *, correct: bool = True, eager: float | None = None,
            compile_: float | None = None, sol: float | None = None, samples: int = 1, passed: int | None = None,
            call_ok: bool = True, uncompetitive: str = "") -> TaskOutcome:
    """One method's outcome on one task, built by hand: `passed` of `samples` correct (all or none by default)."""
    return TaskOutcome(task, category, "PASSED" if correct else "MISMATCH", call_ok or correct, correct, eager,
                       compile_, sol, samples, (samples if correct else 0) if passed is None else passed,
                       uncompetitive=uncompetitive)
