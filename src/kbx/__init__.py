"""kbx: a benchmark and evaluation harness for GPU kernels written by language models.

`kbx.evaluate(task, source)` evaluates one candidate; importing kbx itself loads nothing heavy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from kbx.evaluation.result import Evaluation


def evaluate(task: Any, source: str, **options: Any) -> Evaluation:
    """Evaluate one candidate on one task; see `kbx.api.evaluate`."""
    from kbx.api import evaluate as _evaluate

    return _evaluate(task, source, **options)
