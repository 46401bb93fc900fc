"""Selecting tasks by name: a misspelt name is one error that suggests the task meant."""

from __future__ import annotations

import pytest

from kbx.errors import KbxError
from kbx.tasks.registry import load_suite, select


def test_a_misspelt_task_gets_a_suggestion():
    with pytest.raises(KbxError, match=r"unknown task\(s\): sofmax; did you mean softmax"):
        select(load_suite(), ["sofmax"])


def test_a_name_like_no_task_gets_none():
    with pytest.raises(KbxError) as error:
        select(load_suite(), ["zzzzzz"])
    assert "did you mean" not in str(error.value)
