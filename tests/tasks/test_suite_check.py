"""What the suite expects of its candidates, and where: `EXPECT` (one status or several) and the GPU-only marker
`DEVICE = "cuda"`, which CPU checks skip and the GPU suite check runs."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kbx.status import Status
from kbx.tasks.registry import default_suite_root, load_suite
from kbx.tasks.suite_check import (
    device_reason,
    expected_status,
    expected_statuses,
    got_expected,
    judged_on,
    required_device,
)

ROOT = Path(__file__).resolve().parents[2]
GPU_ONLY = sorted(p for t in load_suite(default_suite_root()) for p in t.wrong_files() if required_device(p) == "cuda")


def _candidate(tmp_path: Path, text: str, name: str = "flaw.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_solution_is_expected_to_pass_anywhere(tmp_path):
    path = _candidate(tmp_path, "x = 1\n", "solution.py")
    assert expected_statuses(path) == ("PASSED",)
    assert judged_on(path, "cpu") and judged_on(path, "cuda")


def test_an_honest_candidate_is_expected_to_pass_and_the_suite_has_them():
    from kbx.tasks.registry import default_suite_root, load_suite

    honest = [p for t in load_suite(default_suite_root()) for p in t.honest_files()]
    assert len(honest) >= 40 and all(expected_statuses(p) == ("PASSED",) for p in honest)


def test_one_status_or_several(tmp_path):
    one = _candidate(tmp_path, 'EXPECT = "MISMATCH"\n', "one.py")
    several = _candidate(tmp_path, 'EXPECT = ("CRASHED", "MISMATCH")\nDEVICE = "cuda"\n', "several.py")
    assert expected_status(one) == "MISMATCH" and got_expected(one, "MISMATCH") and not got_expected(one, "PASSED")
    assert expected_status(several) == "CRASHED | MISMATCH"
    assert got_expected(several, "CRASHED") and got_expected(several, "MISMATCH")
    assert not got_expected(several, "PASSED") and not got_expected(several, "NONFINITE")


@pytest.mark.parametrize("text", ['EXPECT = ("PASSED", "MISMATCH")\n', "EXPECT = ()\n", "x = 1\n",
                                  'EXPECT = "MISMATCH"\nDEVICE = "tpu"\n'])
def test_malformed_declarations_are_refused(tmp_path, text):
    path = _candidate(tmp_path, text)
    with pytest.raises(ValueError):
        expected_statuses(path) if "DEVICE" not in text else required_device(path)


def test_the_gpu_marker_selects_the_device(tmp_path):
    gpu = _candidate(tmp_path, 'EXPECT = "MISMATCH"\nDEVICE = "cuda"\n', "gpu.py")
    anywhere = _candidate(tmp_path, 'EXPECT = "MISMATCH"\n', "anywhere.py")
    assert required_device(gpu) == "cuda" and not judged_on(gpu, "cpu") and judged_on(gpu, "cuda")
    assert required_device(anywhere) is None and judged_on(anywhere, "cpu") and judged_on(anywhere, "cuda")


def test_the_suite_has_gpu_only_wrong_candidates_that_say_why():
    """Issue 20 point 4: a TF32 dot, 32-bit offsets past 2^31, a race, grid y > 65535, a capped row block."""
    assert len(GPU_ONLY) >= 5
    for path in GPU_ONLY:
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        assert "GPU only" in doc or "GPU-only" in doc, f"{path} must say why only a GPU shows its mistake"
        assert "PASSED" not in expected_statuses(path)


def test_verify_tasks_skips_gpu_only_candidates_on_the_cpu_with_a_reason():
    """Only the GPU-only candidates of one task, on the CPU: every one is skipped (none evaluated), and said so."""
    task = GPU_ONLY[0].parent.parent.name
    result = subprocess.run(
        [sys.executable, "scripts/verify_tasks.py", "--wrong-only", "--gpu-only", task],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    skipped = [line for line in result.stdout.splitlines() if line.startswith("skip ")]
    assert skipped and all('DEVICE = "cuda"' in line and "--device cuda" in line for line in skipped)
    assert not any(line.startswith(("ok ", "BAD")) for line in result.stdout.splitlines())


def test_the_gpu_suite_check_selects_them_and_the_cpu_one_skips_them():
    from tests.gpu.test_suite_gpu import CANDIDATES as ON_GPU
    from tests.suite.test_integrity import test_candidate_gets_its_expected_status as on_cpu

    assert set(GPU_ONLY) <= {path for _, path in ON_GPU}
    assert all(judged_on(path, "cuda") and not judged_on(path, "cpu") for path in GPU_ONLY)
    with pytest.raises(pytest.skip.Exception, match='DEVICE = "cuda"'):
        on_cpu(verdicts={}, task=None, path=GPU_ONLY[0])


def test_a_cpu_only_mistake_is_judged_on_the_cpu_alone(tmp_path):
    cpu = _candidate(tmp_path, 'EXPECT = "MISMATCH"\nDEVICE = "cpu"\n', "cpu.py")
    assert required_device(cpu) == "cpu" and judged_on(cpu, "cpu") and not judged_on(cpu, "cuda")
    assert 'DEVICE = "cpu"' in device_reason(cpu) and "the CPU's reference" in device_reason(cpu)
    honest = tmp_path / "task" / "honest" / "cuda_kernel.py"
    honest.parent.mkdir(parents=True)
    honest.write_text('DEVICE = "cuda"\n')
    assert "an honest kernel that runs only there" in device_reason(honest)


def test_a_device_variable_of_the_kernel_is_not_the_marker(tmp_path):
    # Triton's tutorials begin with this line; outer/honest/tutorial_device made the suite's checks raise on it.
    honest = tmp_path / "task" / "honest" / "tutorial.py"
    honest.parent.mkdir(parents=True)
    honest.write_text("import triton\nDEVICE = triton.runtime.driver.active.get_active_torch_device()\n")
    assert required_device(honest) is None and judged_on(honest, "cpu") and judged_on(honest, "cuda")


def test_the_file_name_solution_decides_not_a_literal_in_it(tmp_path):
    (tmp_path / "solution.py").write_text('EXPECT = "MISMATCH"\n')
    assert expected_status(tmp_path / "solution.py") == "PASSED"


def test_a_wrong_candidate_without_a_top_level_declaration_is_an_error(tmp_path):
    path = tmp_path / "no_tail_mask.py"
    path.write_text('def f():\n    EXPECT = "MISMATCH"\n')  # only a top-level EXPECT counts
    with pytest.raises(ValueError, match="has no top-level EXPECT"):
        expected_status(path)


def test_every_wrong_candidate_of_the_suite_declares_statuses_that_exist(suite):
    statuses = {s.value for s in Status}
    for task in suite.values():
        for path in task.wrong_files():
            assert set(expected_statuses(path)) <= statuses - {"PASSED"}, path
