"""kbx: a benchmark and evaluation harness for GPU kernels written by language models.

`kbx.evaluate(task, source)` evaluates one candidate, `kbx.run(method, ...)` runs a method over the suite as
`kbx run` does; importing kbx itself loads nothing heavy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from kbx.evaluation.result import Evaluation
    from kbx.running.runner import RunResult


def evaluate(task: Any, source: str, **options: Any) -> Evaluation:
    """Evaluate one candidate on one task; see `kbx.api.evaluate`."""
    from kbx.api import evaluate as _evaluate

    return _evaluate(task, source, **options)


def run(method: str = "reference", **options: Any) -> RunResult:
    """Run a method over the suite; see `kbx.api.run`."""
    from kbx.api import run as _run

    return _run(method, **options)
