"""The `oneshot` method: one model call per task, its reply the task's candidate."""

from __future__ import annotations

from kbx.errors import KbxError
from kbx.generate.settings import GenerationSettings
from kbx.methods.registry import Method, method


@method("oneshot")
class Oneshot(Method):
    summary = "one model call per task (--model)"
    needs_model = True

    def settings(self, given: GenerationSettings | None) -> GenerationSettings | None:
        settings = super().settings(given)
        if settings is not None and settings.samples != 1:
            raise KbxError("oneshot asks once per task; use --method sample for --samples > 1")
        return settings
