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


KERNELBENCH = ROOT / "tests" / "fixtures" / "kernelbench"


def _kernelbench_task(name):
    from kbx.tasks.kernelbench import load_problems

    return next(t for t in load_problems(KERNELBENCH).tasks if t.name == name)


def test_a_kernelbench_problem_can_be_asked_for_in_cuda():
    task = _kernelbench_task("level2/1_Linear_ReLU")
    system, user = task_prompt(task, {}, "H100", backend="cuda")
    assert "load_inline" in system.content and "`class ModelNew(nn.Module)`" in system.content
    assert "It computes by calling the extension's functions." in system.content
    assert "a top-level function with the task's name" not in system.content
    text = user.content
    assert text.startswith("Write a CUDA (a PyTorch extension built with `load_inline`) implementation of the "
                           "KernelBench problem `level2/1_Linear_ReLU`")
    assert "self.linear = nn.Linear(in_features, out_features)" in text and "Model(in_features, out_features)" in text
    assert "gain_leaky_relu_ext = load_inline(" in text and "132 SMs" in text
    assert "@triton.jit" not in text and "$" not in text.replace("$/", "")


def test_the_kernelbench_triton_prompt_still_asks_for_triton():
    _, user = task_prompt(_kernelbench_task("level1/1_Shifted_Square"), {}, None)
    assert user.content.startswith("Write a Triton implementation of the KernelBench problem")
    assert "@triton.jit" in user.content and "load_inline" not in user.content


def test_the_kernelbench_cuda_example_passes_the_static_stage_as_a_cuda_modelnew():
    from kbx.tasks.spec import ModuleInterface, Parameter, Signature

    text = files("kbx.generate").joinpath("prompts", "kernelbench_example_cuda.md").read_text()
    answer = text.split("An answer:\n```python\n")[1].split("```")[0]
    interface = ModuleInterface(init=("features", "slope"), forward=Signature((Parameter("x"),)))
    verdict = check_static(answer, ModuleInterface.CLASS, interface.forward, None, (), interface)
    assert verdict.status is None and verdict.backend == "cuda", verdict.message


def test_kbx_prompt_asks_for_a_cuda_modelnew(capsys):
    suite = f"kernelbench:{KERNELBENCH}"
    assert main(["prompt", "level1/1_Shifted_Square", "--suite", suite, "--backend", "cuda"]) == 0
    out = capsys.readouterr().out
    assert "class ModelNew" in out and "load_inline" in out and "only compiled" in out
