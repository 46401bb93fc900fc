"""How a generating run asks its model: checked when made, kept in the run's config as JSON for --resume."""

from __future__ import annotations

import json

import pytest

from kbx.errors import KbxError
from kbx.generate.settings import GenerationSettings


def test_settings_survive_the_runs_config():
    settings = GenerationSettings("openai:gpt-x", samples=4, iterations=3, temperature=0.2, backend="cuda")
    assert GenerationSettings.from_json(json.loads(json.dumps(settings.to_json()))) == settings


def test_iterations_stay_unset_until_a_method_fills_them_in():
    assert GenerationSettings("replay:x.jsonl").iterations is None


@pytest.mark.parametrize("bad", [{"samples": 0}, {"iterations": 0}, {"concurrency": 0}, {"max_tokens": 0}])
def test_counts_below_one_are_refused(bad):
    with pytest.raises(KbxError, match="must be >= 1"):
        GenerationSettings("replay:x.jsonl", **bad)


@pytest.mark.parametrize("bad", [{"max_repairs": -1}, {"request_timeout_s": 0.0}])
def test_negative_repairs_and_a_zero_timeout_are_refused(bad):
    with pytest.raises(KbxError, match="--max-repairs must be >= 0 and --request-timeout > 0"):
        GenerationSettings("replay:x.jsonl", **bad)


def test_zero_repairs_is_allowed():
    assert GenerationSettings("replay:x.jsonl", max_repairs=0).max_repairs == 0
