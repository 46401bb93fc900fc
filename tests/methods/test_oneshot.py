"""The `oneshot` method: one model call per task."""

from __future__ import annotations

import pytest

from kbx.errors import KbxError
from kbx.generate.settings import GenerationSettings
from kbx.methods import get_method


def test_one_call_per_task():
    oneshot = get_method("oneshot")
    settings = oneshot.settings(GenerationSettings("replay:x.jsonl"))
    assert settings.iterations == 1 and settings.samples == 1
    assert oneshot.steps(settings) == 1


def test_more_than_one_sample_is_refused():
    with pytest.raises(KbxError, match="oneshot asks once per task"):
        get_method("oneshot").settings(GenerationSettings("replay:x.jsonl", samples=2))


def test_iterations_are_refused():
    with pytest.raises(KbxError, match="--iterations is for methods that iterate .*refine.*, not oneshot"):
        get_method("oneshot").settings(GenerationSettings("replay:x.jsonl", iterations=3))


def test_it_needs_a_model_and_lists_no_candidates_up_front(suite):
    oneshot = get_method("oneshot")
    with pytest.raises(KbxError, match="--method oneshot needs --model"):
        oneshot.settings(None)
    with pytest.raises(NotImplementedError):
        oneshot.candidates([suite["relu"]])
