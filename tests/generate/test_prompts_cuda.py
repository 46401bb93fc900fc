"""Prompts asking for a CUDA candidate (`--backend cuda`): the form the CUDA backend's static stage allows, the
rules on the C++ side, and an example answer of another task that itself passes the static stage."""

from __future__ import annotations

import fnmatch
import sys
from importlib.resources import files
from pathlib import Path

import pytest

from kbx.candidates.static import check_static
from kbx.cli import main
from kbx.errors import KbxError
from kbx.generate.prompts import CUDA_EXAMPLE_TASKS, task_prompt

ROOT = Path(__file__).resolve().parents[2]


def test_the_cuda_prompt_asks_for_load_inline_and_states_its_rules(suite):
    system, user = task_prompt(suite["gelu"], suite, "NVIDIA H100 80GB HBM3", backend="cuda")
    assert "load_inline" in system.content and "`__global__` kernels" in system.content
    assert "cuBLAS" in system.content and "extra_ldflags` stays empty" in system.content
    assert "`triton`, `math`" in system.content, "the Python allow-list is stated too"
    text = user.content
    assert text.startswith("Write a CUDA implementation of the task `gelu`")
    assert "def gelu(input, approximate='none'):" in text and "`erf`" in text
    assert "132 SMs" in text and "(`relu`)" in text and "relu_ext = load_inline(" in text
    assert "@triton.jit" not in text and "$" not in text.replace("$/", "")


def test_relu_gets_the_sigmoid_example_and_no_gpu_means_compile_only(suite):
    _, user = task_prompt(suite["relu"], suite, None, backend="cuda")
    assert "(`sigmoid`)" in user.content and "def sigmoid(input):" in user.content
    assert "only compiled" in user.content and "Triton's interpreter" not in user.content


def test_the_triton_prompt_is_unchanged_by_default(suite):
    assert task_prompt(suite["gelu"], suite, None) == task_prompt(suite["gelu"], suite, None, backend="triton")


def test_an_unknown_backend_is_one_clear_error(suite):
    with pytest.raises(KbxError, match="unknown backend 'hip'"):
        task_prompt(suite["gelu"], suite, None, backend="hip")


@pytest.mark.parametrize("name", CUDA_EXAMPLE_TASKS)
def test_each_cuda_example_passes_the_static_stage_as_cuda(suite, name):
    task = suite[name]
    source = files("kbx.generate").joinpath("prompts", "cuda", f"{name}.py").read_text()
    verdict = check_static(source, name, task.signature, None, task.forbidden)
    assert verdict.status is None and verdict.backend == "cuda", verdict.message


def test_the_relu_example_is_the_tests_fixture():
    packaged = files("kbx.generate").joinpath("prompts", "cuda", "relu.py").read_text()
    assert packaged == (ROOT / "tests" / "fixtures" / "cuda" / "relu.py").read_text()


def test_kbx_prompt_asks_for_cuda(capsys):
    assert main(["prompt", "relu", "--backend", "cuda", "--gpu", "H100"]) == 0
    out = capsys.readouterr().out
    assert "load_inline" in out and "def sigmoid(input):" in out and "Write a CUDA implementation" in out


def test_the_cuda_templates_and_examples_are_package_data():
    if sys.version_info < (3, 11):
        pytest.skip("tomllib")
    import tomllib

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["kbx"]
    shipped = [ROOT / "src/kbx/generate/prompts" / name for name in ("system_cuda.md", "task_cuda.md")]
    shipped += sorted((ROOT / "src/kbx/generate/prompts/cuda").glob("*.py"))
    for path in shipped:
        relative = path.relative_to(ROOT / "src/kbx").as_posix()
        assert any(fnmatch.fnmatch(relative, g) for g in globs), f"{relative} is not packaged"
