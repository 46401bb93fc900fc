"""What generation needs of the store (`kbx.generate.records`): the store the runner hands it keeps the interfaces'
shape, and the reader of another run's model calls keeps its contract."""

from __future__ import annotations

import inspect

import pytest

from kbx.errors import KbxError
from kbx.generate.records import RunRecords
from kbx.running.runner import _stored_generations
from kbx.store.db import Store

PROTOCOL_METHODS = ("generations", "rows", "add_generation", "usage")


def _parameters(function) -> list[str]:  # noqa: ANN001 - any function
    return list(inspect.signature(function).parameters)


def test_the_protocol_names_the_methods_generation_calls():
    assert {name for name in vars(RunRecords) if not name.startswith("_")} == set(PROTOCOL_METHODS)


@pytest.mark.parametrize("name", PROTOCOL_METHODS)
def test_the_store_has_each_method_with_the_protocols_parameters(name):
    assert _parameters(getattr(Store, name)) == _parameters(getattr(RunRecords, name))


def _generation(task: str) -> dict:
    return {"task": task, "sample": 0, "iteration": 0, "candidate": f"{task}.py", "candidate_hash": "h",
            "parent_hash": None, "provider": "test", "model": "m", "messages": [], "reply": "r",
            "finish_reason": "stop", "usage": {"prompt_tokens": 1, "completion_tokens": 2, "cost_usd": None},
            "attempts": 1, "latency_s": 0.1, "raw": {}}


def test_the_runners_reader_gives_a_prefixs_full_id_and_its_calls_in_order(tmp_path):
    path = tmp_path / "k.db"
    with Store(path) as store:
        store.begin_run("replayed-1", method="sample", model="m", device="cpu", git_sha=None, harness="h",
                        config={}, environment={}, secret_seed=1)
        for task in ("relu", "gelu"):
            store.add_generation("replayed-1", _generation(task))
    run_id, calls = _stored_generations(path)("replayed")
    assert run_id == "replayed-1" and [c["task"] for c in calls] == ["relu", "gelu"]
    with pytest.raises(KbxError, match="no run"):
        _stored_generations(path)("other")
