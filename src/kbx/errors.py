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


class NotJudged(KbxError):
    """An evaluation that cannot be judged here, through no fault of the candidate's: the run goes on without it,
    reports it as one line (NOT JUDGED) and stores nothing for it, so a later run where it can be judged does."""


class NeedsGpu(NotJudged):
    """A CUDA candidate on a machine that cannot run its kernels (no GPU, or torch without CUDA). Its extensions
    were compiled first: a compile error is still a verdict (COMPILE_ERROR), a successful build is not."""


class ReferenceFailed(NotJudged):
    """A task's reference raised while computing a case's expected outputs (on this device, at this size): the
    candidate cannot be judged there. A defect of the task, not of the candidate; the run goes on without that
    evaluation and says so at its end."""
