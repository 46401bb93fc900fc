"""The bridge from `kbx run` to the generating methods: the provider opened before the run, the plan, and the run
function driving the chains with the runner's evaluate (replayed replies and in-memory records, no store)."""

from __future__ import annotations

import io
import json

import pytest

from kbx.errors import KbxError
from kbx.generate.drive import generating_run
from kbx.generate.settings import GenerationSettings
from kbx.methods import get_method


class Records:
    """The run's records in memory (`kbx.generate.records.RunRecords`)."""

    def __init__(self) -> None:
        self.generated: list[dict] = []
        self.stored_rows: list[dict] = []

    def generations(self, run_id):
        return [g for g in self.generated if g["run"] == run_id]

    def rows(self, run_id):
        return list(self.stored_rows)

    def add_generation(self, run_id, generation):
        self.generated.append({**generation, "run": run_id})
        return True

    def usage(self, run_id):
        return {"model_calls": len(self.generations(run_id))}


@pytest.fixture
def replies(tmp_path):
    path = tmp_path / "replies.jsonl"
    lines = [{"task": task, "sample": sample, "response": f"{task} {sample}", "usage": {"prompt_tokens": 3,
             "completion_tokens": 2}} for task in ("relu", "add") for sample in (0, 1)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _sample(replies, suite, progress=None, samples=2):
    method = get_method("sample")
    settings = method.settings(GenerationSettings(f"replay:{replies}", samples=samples))
    return generating_run(method, settings, [suite["relu"], suite["add"]], list(suite.values()), None, progress)


def test_names_the_tasks_and_plans_samples_times_steps_per_task(replies, suite):
    _, names, planned = _sample(replies, suite)
    assert names == ("relu", "add") and planned == 4
    refine = get_method("refine")
    settings = refine.settings(GenerationSettings(f"replay:{replies}", iterations=3))
    assert generating_run(refine, settings, [suite["relu"]], list(suite.values()), None, None)[2] == 3


def test_the_run_asks_evaluates_every_reply_with_the_runners_evaluate_and_summarises(replies, suite):
    run, _, _ = _sample(replies, suite)
    evaluated = []

    def evaluate(task, candidate):
        evaluated.append((task.name, candidate.name, candidate.provenance["response"]))
        return {"task": task.name, "candidate": candidate.name, "candidate_hash": candidate.hash,
                "status": "PASSED" if task.name == "relu" else "MISMATCH"}

    records = Records()
    summary = run(evaluate, records, "r1", None, 1)
    assert sorted(evaluated) == [("add", "add#s0", "add 0"), ("add", "add#s1", "add 1"),
                                 ("relu", "relu#s0", "relu 0"), ("relu", "relu#s1", "relu 1")]
    assert summary["provider"] == f"replay:{replies}" and summary["settings"]["samples"] == 2
    assert summary["new_model_calls"] == 4 and summary["reused_generations"] == 0 and summary["model_calls"] == 4
    assert "pass_at_k" in summary, "the method's own summary is merged in"
    assert sorted((c["task"], c["sample"]) for c in summary["chains"]) == [("add", 0), ("add", 1), ("relu", 0),
                                                                          ("relu", 1)]
    assert len(records.generations("r1")) == 4


def test_progress_goes_to_the_stream_given_and_nowhere_without_one(replies, suite, capsys):
    stream = io.StringIO()
    row = {"status": "MISMATCH"}
    run, _, _ = _sample(replies, suite, progress=stream)
    run(lambda task, candidate: {**row, "candidate": candidate.name}, Records(), "r", None, 1)
    assert stream.getvalue().count("[model] ") == 4 and "relu#s1" in stream.getvalue()
    quiet, _, _ = _sample(replies, suite)
    quiet(lambda task, candidate: {**row, "candidate": candidate.name}, Records(), "r", None, 1)
    assert capsys.readouterr() == ("", "")


def test_a_missing_key_fails_before_the_run_starts(monkeypatch, suite):
    for name in ("OPENAI_API_KEY", "KBX_OPENAI_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    method = get_method("oneshot")
    settings = method.settings(GenerationSettings("openai:tiny"))
    with pytest.raises(KbxError, match="OPENAI_API_KEY"):
        generating_run(method, settings, [suite["relu"]], list(suite.values()))
