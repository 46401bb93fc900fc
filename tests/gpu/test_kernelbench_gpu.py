"""On a GPU: KernelBench problems end to end (issue 23). A level-1 and a level-2 sample
(tests/fixtures/kernelbench/) are evaluated through the CLI with `--contract kernelbench`, checked at the problems'
own sizes, timed against eager and torch.compile, judged by KernelBench's rule beside kbx's verdict, and reported
with fast_p at KernelBench's thresholds; then the rule's fixtures (tests/fixtures/kernelbench_rule/, Triton and
CUDA) get their pairs of verdicts on the GPU. None of this has run yet: no GPU was available when it was written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SAMPLES = FIXTURES / "kernelbench"
RULE = FIXTURES / "kernelbench_rule"
TIMING = ("--timing-rounds", "1", "--timing-budget", "0.2", "--timing-warmup", "0.05")


def kbx(*args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KBX_EXTENSION_CACHE": str(tmp / "extensions")}
    return subprocess.run([sys.executable, "-m", "kbx.cli", *args], capture_output=True, text=True, timeout=1800,
                          env=env)


def rows(out: Path, base: Path) -> dict[str, dict]:
    """The run's rows by candidate path relative to `base`."""
    return {Path(r["candidate"]).relative_to(base).as_posix(): r
            for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}


def test_a_level1_and_a_level2_sample_run_end_to_end(tmp_path):
    sources = [SAMPLES / "candidates" / "level1" / "1_Shifted_Square" / "honest.py",
               SAMPLES / "candidates" / "level2" / "1_Linear_ReLU" / "honest.py"]
    store, out = tmp_path / "kbx.db", tmp_path / "out"
    result = kbx("eval", *map(str, sources), "--suite", f"kernelbench:{SAMPLES}", "--device", "cuda", "--out",
                 str(out), "--store", str(store), "--contract", "kernelbench", *TIMING, tmp=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    found = {r["task"]: r for r in rows(out, SAMPLES).values()}
    assert set(found) == {"level1/1_Shifted_Square", "level2/1_Linear_ReLU"}
    for task, row in found.items():
        assert row["status"] == "PASSED", (task, row["message"], row["worker_output"][-2000:])
        assert "bench" in {c["workload"] for c in row["cases"]}, "the problem's own size is checked on a GPU"
        assert row["speedup_eager"] is not None and row["speedup_compile"] is not None
        assert row["kernelbench"]["verdict"] == "PASSED" and row["kernelbench"]["passed"] == 5, row["kernelbench"]
    report = kbx("report", "latest", "--store", str(store), "--resamples", "20", tmp=tmp_path)
    assert report.returncode == 0, report.stderr
    section = report.stdout.split("KernelBench's numbers\n")[1]
    eager = next(line for line in section.splitlines() if line.split()[1:2] == ["eager"]).split()
    assert eager[2] == "100%", "fast_0 is the correctness rate of a timed run"
    assert "the two verdicts agree on every evaluation the rule judged" in section


def test_the_rule_fixtures_get_both_verdicts_on_a_gpu(tmp_path):
    out = tmp_path / "out"
    result = kbx("eval", str(RULE / "candidates"), str(RULE / "cuda"), "--suite", f"kernelbench:{RULE}", "--device",
                 "cuda", "--out", str(out), "--store", str(tmp_path / "kbx.db"), "--contract", "kernelbench",
                 "--no-timing", tmp=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    found = rows(out, RULE)
    pairs = {name: (row["status"], row["kernelbench"]["verdict"]) for name, row in found.items()}
    assert pairs == {
        "candidates/level1/1_Gain_Offset/honest.py": ("PASSED", "PASSED"),
        "candidates/level1/1_Gain_Offset/no_offset.py": ("MISMATCH", "FAILED"),
        "candidates/level1/1_Gain_Offset/bfloat16_rounding.py": ("MISMATCH", "PASSED"),
        "candidates/level1/1_Gain_Offset/torch_does_the_work.py": ("REJECTED_RUNTIME", "PASSED"),
        "candidates/level1/1_Gain_Offset/even_width_path.py": ("MISMATCH", "FAILED"),  # the GPU checks width 40 too
        "candidates/level2/1_Scale_Add_Sigmoid/honest.py": ("PASSED", "PASSED"),
        "cuda/level1/1_Gain_Offset/honest.py": ("PASSED", "PASSED"),
        "cuda/level1/1_Gain_Offset/does_not_compile.py": ("COMPILE_ERROR", "FAILED"),
    }, {name: row["message"][:300] for name, row in found.items()}


def test_the_problems_own_code_passes_and_is_timed_under_the_reference_code_policy(tmp_path):
    """`kbx run --method reference`: each sample's own `Model` as `ModelNew`, under `Policy.REFERENCE_CODE`, passes
    on the GPU at the problems' own sizes (the launch trace's rules and the timed calls' kernel rule left out), is
    timed against eager and torch.compile of itself, and KernelBench's rule agrees."""
    out = tmp_path / "out"
    result = kbx("run", "--method", "reference", "--suite", f"kernelbench:{SAMPLES}", "--device", "cuda", "--out",
                 str(out), "--store", str(tmp_path / "kbx.db"), "--contract", "kernelbench", *TIMING, tmp=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    found = {r["task"]: r for r in rows(out, SAMPLES).values()}
    assert set(found) == {"level1/1_Shifted_Square", "level2/1_Linear_ReLU", "level3/1_Two_Layer_MLP"}
    for task, row in found.items():
        assert (row["status"], row["policy"]) == ("PASSED", "reference-code"), (task, row["message"])
        assert "bench" in {c["workload"] for c in row["cases"]}
        assert row["speedup_eager"] is not None, task
        assert row["kernelbench"]["verdict"] == "PASSED", row["kernelbench"]
    assert "policy reference-code (3 evaluation(s))" in result.stdout
