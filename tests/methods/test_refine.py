"""The `refine` method: chains of up to `iterations` model calls, 4 unless given."""

from __future__ import annotations

import pytest

from kbx.errors import KbxError
from kbx.generate.settings import GenerationSettings
from kbx.methods import get_method


def test_four_iterations_unless_given():
    refine = get_method("refine")
    assert refine.settings(GenerationSettings("replay:x.jsonl")).iterations == 4
    assert refine.settings(GenerationSettings("replay:x.jsonl", iterations=7)).iterations == 7


def test_a_chain_takes_as_many_steps_as_iterations():
    refine = get_method("refine")
    assert refine.steps(refine.settings(GenerationSettings("replay:x.jsonl"))) == 4
    assert refine.steps(GenerationSettings("replay:x.jsonl", iterations=2)) == 2


def test_it_keeps_the_other_settings_and_takes_samples():
    given = GenerationSettings("replay:x.jsonl", samples=3, max_repairs=1, temperature=0.5)
    settings = get_method("refine").settings(given)
    assert (settings.samples, settings.max_repairs, settings.temperature, settings.model) == (
        3, 1, 0.5, "replay:x.jsonl")


def test_it_needs_a_model():
    with pytest.raises(KbxError, match="--method refine needs --model"):
        get_method("refine").settings(None)
