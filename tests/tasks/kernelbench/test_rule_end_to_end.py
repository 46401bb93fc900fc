"""`--contract kernelbench` through the CLI on the CPU interpreter: each evaluation of a KernelBench problem also
records the verdict KernelBench's own rule gives (its five inputs at the problem's own size, allclose at 1e-2),
and `kbx report` shows where the two differ. The fixtures (`tests/fixtures/kernelbench_rule/`) are problems small
enough for the interpreter at their published sizes, with one candidate for each way the verdicts can relate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kbx.evaluation.orchestrator.extensions import find_cuda_home
from tests.tasks.kernelbench.problems import FIXTURES

RULE_FIXTURES = FIXTURES.parent / "kernelbench_rule"
SUITE = f"kernelbench:{RULE_FIXTURES}"
CANDIDATES = RULE_FIXTURES / "candidates"
needs_nvcc = pytest.mark.skipif(find_cuda_home() is None, reason="needs the CUDA toolkit (nvcc)")


def kbx(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kbx.cli", *args], capture_output=True, text=True, timeout=1500,
                          env=env)


def evaluate(sources: Path, out: Path, store: Path, *extra: str, env: dict[str, str] | None = None
             ) -> tuple[subprocess.CompletedProcess[str], dict[str, dict]]:
    result = kbx("eval", str(sources), "--suite", SUITE, "--device", "cpu", "--out", str(out), "--store", str(store),
                 *extra, env=env)
    rows = {Path(r["candidate"]).name: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    return result, rows


@pytest.fixture(scope="module")
def judged(tmp_path_factory) -> tuple[Path, dict[str, dict]]:
    folder = tmp_path_factory.mktemp("rule")
    result, rows = evaluate(CANDIDATES / "level1", folder / "out", folder / "kbx.db", "--contract", "kernelbench")
    assert result.returncode == 0, result.stderr
    return folder / "kbx.db", rows


def test_each_evaluation_records_both_verdicts(judged):
    _, rows = judged
    pairs = {name: (row["status"], row["kernelbench"]["verdict"], row["kernelbench"]["passed"])
             for name, row in rows.items()}
    assert pairs == {
        "honest.py": ("PASSED", "PASSED", 5),
        "no_offset.py": ("MISMATCH", "FAILED", 0),
        "bfloat16_rounding.py": ("MISMATCH", "PASSED", 5),  # within 1e-2, far outside kbx's float32 contract
        "torch_does_the_work.py": ("REJECTED_RUNTIME", "PASSED", 5),  # the rule has no check of who did the work
        "even_width_path.py": ("PASSED", "FAILED", 0),  # wrong only at the published width; the CPU checks odd ones
    }
    assert rows["even_width_path.py"]["kernelbench"]["message"].startswith("trial 1: MISMATCH: ")
    assert "atol=0.01, rtol=0.01" in rows["even_width_path.py"]["kernelbench"]["message"]
    assert "kernelbench" in rows["honest.py"]["phases"]


def test_the_report_shows_where_the_verdicts_differ(judged):
    store, _ = judged
    result = kbx("report", "latest", "--store", str(store), "--resamples", "20")
    assert result.returncode == 0, result.stderr
    section = result.stdout.split("KernelBench's numbers\n")[1]
    counts = next(line for line in section.splitlines() if line.startswith("eval ") and "judged" in line).split()
    assert counts[-5:] == ["1", "1", "2", "1", "0"]  # both pass, both fail, rule only, kbx only, not judged
    differing = section.split("where they differ\n")[1].splitlines()[2:]
    assert sorted(line.split()[2].rsplit("/", 1)[1] for line in differing) == [
        "bfloat16_rounding.py", "even_width_path.py", "torch_does_the_work.py"]


def test_a_row_without_the_rule_is_not_served_to_a_run_that_asks_for_it(tmp_path):
    honest = CANDIDATES / "level1" / "1_Gain_Offset" / "honest.py"
    store = tmp_path / "kbx.db"
    _, plain = evaluate(honest, tmp_path / "plain", store)
    assert plain["honest.py"]["kernelbench"] is None
    result, ruled = evaluate(honest, tmp_path / "ruled", store, "--contract", "kernelbench")
    assert "cached" not in result.stderr and ruled["honest.py"]["kernelbench"]["verdict"] == "PASSED"
    result, again = evaluate(honest, tmp_path / "again", store, "--contract", "kernelbench")
    assert "cached from run" in result.stderr and again["honest.py"]["kernelbench"]["verdict"] == "PASSED"


def test_the_problems_own_size_too_large_for_the_cpu_is_not_judged_by_the_rule(tmp_path):
    honest = FIXTURES / "candidates" / "level1" / "1_Shifted_Square" / "honest.py"
    result = kbx("eval", str(honest), "--suite", f"kernelbench:{FIXTURES}", "--device", "cpu", "--out",
                 str(tmp_path / "out"), "--store", str(tmp_path / "kbx.db"), "--contract", "kernelbench")
    assert result.returncode == 0, result.stderr
    (row,) = map(json.loads, (tmp_path / "out" / "results.jsonl").read_text().splitlines())
    assert row["status"] == "PASSED" and row["kernelbench"]["verdict"] == "NOT_JUDGED"
    assert "more than the CPU interpreter runs" in row["kernelbench"]["message"]


@pytest.mark.slow
@needs_nvcc
def test_cuda_modelnew_candidates_compile_and_a_compiler_error_fails_both_verdicts(tmp_path):
    env = {**os.environ, "KBX_EXTENSION_CACHE": str(tmp_path / "extensions")}
    result, rows = evaluate(RULE_FIXTURES / "cuda", tmp_path / "out", tmp_path / "kbx.db", "--contract",
                            "kernelbench", env=env)
    broken = rows["does_not_compile.py"]
    assert broken["status"] == "COMPILE_ERROR" and 'identifier "bias" is undefined' in broken["message"]
    assert broken["kernelbench"]["verdict"] == "FAILED"
    assert broken["kernelbench"]["message"].startswith("did not compile: extension `kbx_test_gain_offset_broken`")
    # the honest one compiled; without a GPU it cannot run, so it is not judged (and not stored)
    assert "honest.py" not in rows
    assert result.returncode == 1 and "compiled (0 from the cache); its kernels need a GPU" in result.stderr
