"""The `sample` method: `--samples` independent model calls per task, scored by pass@k."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kbx.generate.metrics import pass_at_k_summary
from kbx.generate.settings import GenerationSettings
from kbx.methods.registry import Method, method


@method("sample")
class Sample(Method):
    summary = "--samples independent model calls per task, scored by pass@k (--model)"
    needs_model = True

    def run_summary(self, rows: Iterable[Mapping[str, Any]], settings: GenerationSettings) -> dict[str, Any]:
        return {"pass_at_k": pass_at_k_summary(rows, settings.samples)}
