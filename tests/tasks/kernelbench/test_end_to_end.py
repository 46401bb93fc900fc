"""KernelBench problems through the CLI: listed, shown, prompted, and `ModelNew` candidates evaluated on the CPU
interpreter in the confined pipeline (honest PASSED, wrong MISMATCH, torch doing the work rejected, a failing
constructor the candidate's RUNTIME_ERROR)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.tasks.kernelbench.problems import FIXTURES, SCALE, write

SUITE = f"kernelbench:{FIXTURES}"
CANDIDATES = FIXTURES / "candidates"


def kbx(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kbx.cli", *args], capture_output=True, text=True, timeout=900)


def test_tasks_list_shows_every_problem_and_one_line_for_each_it_cannot_load(tmp_path):
    write(tmp_path, "level1/1_Scale", SCALE)
    write(tmp_path, "level1/2_Broken", SCALE.replace("def get_inputs", "def inputs"))
    result = kbx("tasks", "list", "--suite", f"kernelbench:{tmp_path}", "--json")
    assert result.returncode == 0, result.stderr
    (row,) = json.loads(result.stdout)
    assert (row["name"], row["category"], row["level"]) == ("level1/1_Scale", "Math", 1)
    assert [w["role"] for w in row["workloads"]] == ["bench", "smoke", "check"]
    assert result.stderr.strip() == "kbx: not loaded: level1/2_Broken: defines no top-level function `get_inputs()`"


def test_tasks_list_selects_a_level_without_importing_torch():
    code = (f"import sys; from kbx.cli import main; main(['tasks', 'list', '--suite', {SUITE!r}, '--level', '3']); "
            "assert 'torch' not in sys.modules")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "level3/1_Two_Layer_MLP" in result.stdout and "level1/" not in result.stdout


def test_show_and_prompt_describe_the_modelnew_to_write():
    shown = kbx("tasks", "show", "level2/1_Linear_ReLU", "--suite", SUITE)
    assert shown.returncode == 0, shown.stderr
    assert "class ModelNew(nn.Module), built as Model(in_features, out_features), called as forward(x)" in shown.stdout
    prompt = kbx("prompt", "level2/1_Linear_ReLU", "--suite", SUITE)
    assert prompt.returncode == 0, prompt.stderr
    for text in ("class ModelNew(nn.Module)", "self.linear = nn.Linear(in_features, out_features)",
                 "Model(in_features, out_features)", "judged against a float64 truth"):
        assert text in prompt.stdout


def test_modelnew_candidates_get_their_verdicts_on_the_interpreter(tmp_path):
    out = tmp_path / "out"
    result = kbx("eval", str(CANDIDATES), "--suite", SUITE, "--device", "cpu", "--out", str(out),
                 "--store", str(tmp_path / "kbx.db"))
    assert result.returncode == 0, result.stderr
    rows = {Path(r["candidate"]).relative_to(CANDIDATES).as_posix(): r
            for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    statuses = {name: row["status"] for name, row in rows.items()}
    assert statuses == {
        "level1/1_Shifted_Square/honest.py": "PASSED",
        "level1/1_Shifted_Square/shift_by_row.py": "MISMATCH",
        "level1/1_Shifted_Square/torch_does_the_work.py": "REJECTED_RUNTIME",
        "level1/1_Shifted_Square/failing_constructor.py": "RUNTIME_ERROR",
        "level2/1_Linear_ReLU/honest.py": "PASSED",
    }
    passed = rows["level2/1_Linear_ReLU/honest.py"]
    assert passed["task"] == "level2/1_Linear_ReLU" and passed["category"] == "Fusion"
    assert {c["workload"] for c in passed["cases"]} == {"smoke", "check", "check~p", "check~p~refill"}
    assert "runtime.torch_compute" in rows["level1/1_Shifted_Square/torch_does_the_work.py"]["message"]
    failing = rows["level1/1_Shifted_Square/failing_constructor.py"]["message"]
    assert failing.startswith("ModelNew(*get_init_inputs()) failed: ZeroDivisionError")


BREAKS_WHEN_SHRUNK = """
import torch
import torch.nn as nn


class Model(nn.Module):
    \"\"\"Doubles its input, read as rows of exactly 1024 (the size is written into the model).\"\"\"

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.reshape(-1, 1024) * 2


batch_size = 64
dim = 1024


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
"""

RESHAPES_LIKE_THE_MODEL = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def double_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.reshape(-1, 1024).contiguous()
        out = torch.empty_like(x)
        double_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
"""


def test_a_case_whose_reference_fails_too_is_the_problems_fault_not_the_candidates(tmp_path):
    write(tmp_path / "problems", "level1/1_Fixed_Rows", BREAKS_WHEN_SHRUNK)
    (tmp_path / "candidate.py").write_text(RESHAPES_LIKE_THE_MODEL)
    result = kbx("eval", str(tmp_path / "candidate.py"), "--tasks", "level1/1_Fixed_Rows", "--suite",
                 f"kernelbench:{tmp_path / 'problems'}", "--device", "cpu", "--out", str(tmp_path / "out"),
                 "--store", str(tmp_path / "kbx.db"))
    assert result.returncode == 1
    assert "could not be judged" in result.stderr and "its reference failed on smoke/float32" in result.stderr
    assert (tmp_path / "out" / "results.jsonl").read_text() == ""


def test_a_run_lists_the_problems_it_could_not_load_as_skipped(tmp_path):
    write(tmp_path / "problems", "level1/1_Scale", SCALE)
    write(tmp_path / "problems", "level1/2_Broken", SCALE.replace("class Model(", "class Net("))
    (tmp_path / "none").mkdir()
    result = kbx("eval", str(tmp_path / "none"), "--suite", f"kernelbench:{tmp_path / 'problems'}", "--device", "cpu",
                 "--out", str(tmp_path / "out"), "--store", str(tmp_path / "kbx.db"))
    assert result.returncode == 1
    assert "skipped: not loaded: level1/2_Broken: defines no top-level `class Model(nn.Module)`" in result.stderr
