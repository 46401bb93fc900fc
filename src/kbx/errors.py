"""Exceptions for user mistakes. Candidate failures are never exceptions; they are statuses."""

from __future__ import annotations


class KbxError(Exception):
    """A user-facing error: the CLI prints its message as one line and exits non-zero."""


class TaskError(KbxError):
    """A task folder is malformed; the message names the file and the problem."""

    def __init__(self, path: object, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem
