"""The `sample` method: independent calls per task, and pass@k in its run summary."""

from __future__ import annotations

import pytest

from kbx.errors import KbxError
from kbx.generate.settings import GenerationSettings
from kbx.methods import get_method


def test_samples_are_single_calls():
    sample = get_method("sample")
    settings = sample.settings(GenerationSettings("replay:x.jsonl", samples=5))
    assert settings.samples == 5 and settings.iterations == 1
    assert sample.steps(settings) == 1


def test_iterations_are_refused():
    with pytest.raises(KbxError, match="--iterations is for methods that iterate .*, not sample"):
        get_method("sample").settings(GenerationSettings("replay:x.jsonl", iterations=3))


def test_the_run_summary_is_pass_at_k_over_tasks():
    """relu: 1 of 2 correct (pass@1 = 0.5, pass@2 = 1); gelu: 0 of 2 (0, 0): means 0.25 and 0.5."""
    rows = [{"task": "relu", "status": "PASSED"}, {"task": "relu", "status": "MISMATCH"},
            {"task": "gelu", "status": "COMPILE_ERROR"}, {"task": "gelu", "status": "MISMATCH"}]
    summary = get_method("sample").run_summary(rows, GenerationSettings("replay:x.jsonl", samples=2))
    assert summary == {"pass_at_k": {"pass@1": 0.25, "pass@2": 0.5}}
