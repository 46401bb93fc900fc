"""Prompts: every field a model needs, the target GPU, an example from another task; the templates ship."""

from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

import pytest

from kbx.cli import main
from kbx.generate.prompts import task_prompt

ROOT = Path(__file__).resolve().parents[2]


def test_the_task_prompt_states_task_reference_signature_contract_and_target(suite):
    system, user = task_prompt(suite["gelu"], suite, "NVIDIA H100 80GB HBM3")
    assert system.role == "system" and "exactly one fenced ```python code block" in system.content
    assert "`triton`, `math`" in system.content and "numpy included" in system.content
    text = user.content
    assert "def gelu(input, approximate='none'):" in text
    assert suite["gelu"].reference_source.strip() in text
    assert "judged against a float64 truth" in text and "accumulation dtype: float32" in text
    assert "every element: |out - truth| <=" in text and "tf32 allowed: no" in text
    assert "`erf`" in text, "forbidden torch operations are named"
    assert "132 SMs" in text and "3.35 TB/s" in text and "989 TFLOP/s" in text
    assert "(`relu`)" in text and "def relu(input):" in text, "the example is another task's solution"
    assert "$" not in text.replace("$/", ""), "every template field was filled"


def test_relu_gets_another_example_and_the_cpu_is_named_as_such(suite):
    _, user = task_prompt(suite["relu"], suite, None)
    assert "(`add`)" in user.content and "def add(" in user.content
    assert "Triton's interpreter" in user.content


def test_kbx_prompt_prints_the_conversation(capsys):
    assert main(["prompt", "add", "--gpu", "H200"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("===== system") and "===== user" in out and "4.8 TB/s" in out and "def add(" in out


def test_the_template_files_are_package_data():
    if sys.version_info < (3, 11):
        pytest.skip("tomllib")
    import tomllib

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["kbx"]
    templates = sorted((ROOT / "src/kbx/generate/prompts").glob("*.md"))
    assert {"system.md", "task.md", "feedback_failed.md", "feedback_passed.md"} <= {p.name for p in templates}
    for path in templates:
        relative = path.relative_to(ROOT / "src/kbx").as_posix()
        assert any(fnmatch.fnmatch(relative, g) for g in globs), f"{relative} is not packaged"

