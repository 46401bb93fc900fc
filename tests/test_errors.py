"""The user-facing errors: one line each, a task's naming its file."""

from __future__ import annotations

from pathlib import Path

from kbx.errors import KbxError, NeedsGpu, NotJudged, ReferenceFailed, TaskError


def test_a_task_error_names_the_file_and_keeps_both_parts():
    error = TaskError(Path("suite/Activation/gelu/task.py"), "reference is missing")
    assert str(error) == "suite/Activation/gelu/task.py: reference is missing"
    assert error.path == Path("suite/Activation/gelu/task.py") and error.problem == "reference is missing"


def test_every_error_is_one_the_cli_reports_as_a_line():
    """The CLI catches KbxError; an evaluation that cannot be judged is one of them (and of NotJudged)."""
    assert issubclass(TaskError, KbxError)
    assert issubclass(NeedsGpu, NotJudged) and issubclass(ReferenceFailed, NotJudged)
    assert issubclass(NotJudged, KbxError)
