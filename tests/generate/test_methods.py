"""oneshot, sample and refine end to end on the CPU against a local OpenAI-compatible server, and replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbx.cli import main
from kbx.generate.metrics import pass_at_k_by_task
from kbx.generate.settings import GenerationSettings
from kbx.running.runner import RunOptions, run_method
from kbx.store import default_store_path
from kbx.store.db import Store
from tests.generate import replies
from tests.generate.server import Refusal, Script, serve

pytestmark = pytest.mark.slow


@pytest.fixture
def server(monkeypatch):
    """Start a scripted server for `replies` per task; returns the script (its requests are recorded)."""
    opened = []

    def start(per_task):
        script = Script(per_task)
        context = serve(script)
        url = context.__enter__()
        opened.append(context)
        monkeypatch.setenv("KBX_OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        return script

    yield start
    for context in opened:
        context.__exit__(None, None, None)


def _run(method, tmp_path, **settings):
    options = RunOptions(out_dir=tmp_path / method, device="cpu", tasks=("relu",),
                         generation=GenerationSettings(**{"model": "openai:scripted", **settings}))
    result = run_method(method, options, progress=None)
    return result, json.loads((tmp_path / method / "run.json").read_text())


def _generations(run_id):
    with Store(default_store_path()) as store:
        return store.generations(run_id)


def _last_user(request):
    return request["messages"][-1]["content"]


def test_refine_feeds_back_repairs_and_stops_once_correct_where_nothing_is_timed(server, tmp_path):
    """On the CPU a correct kernel ends the chain: asking for a faster one would measure nothing (on a GPU the chain
    goes on with the timings, `tests/generate/test_feedback.py`)."""
    script = server({"relu": [Refusal(429, {"Retry-After": "0"}), replies.WRONG, replies.BROKEN, replies.CORRECT,
                              replies.WRONG]})
    result, run = _run("refine", tmp_path, iterations=4)
    assert [(r["candidate"], r["status"]) for r in result.rows] == [
        ("relu#s0.i0", "MISMATCH"), ("relu#s0.i1", "COMPILE_ERROR"), ("relu#s0.i2", "PASSED")]
    asked = script.completions()
    assert len(asked) == 3 and len(script.requests) == 4, "one 429, retried"
    assert "**MISMATCH**" in _last_user(asked[1]) and "elements differ" in _last_user(asked[1])
    assert "at (" in _last_user(asked[1]) and "got" in _last_user(asked[1]), "the mismatch report"
    assert "**COMPILE_ERROR**" in _last_user(asked[2]) and "syntax error on line" in _last_user(asked[2])
    assert [len(r["messages"]) for r in asked] == [2, 4, 6], "the whole conversation goes each time"

    generations = _generations(result.run_id)
    by_iteration = {g["iteration"]: g for g in generations}
    rows = {r["candidate"]: r for r in result.rows}
    assert by_iteration[0]["attempts"] == 2 and by_iteration[0]["parent_hash"] is None
    for i in (1, 2):
        assert by_iteration[i]["parent_hash"] == rows[f"relu#s0.i{i - 1}"]["candidate_hash"]
        assert by_iteration[i]["messages"] == asked[i]["messages"]
        assert rows[f"relu#s0.i{i}"]["provenance"]["parent"] == by_iteration[i]["parent_hash"]
    assert by_iteration[2]["reply"] == replies.CORRECT and by_iteration[2]["usage"]["prompt_tokens"] == 106
    (chain,) = run["generation"]["chains"]
    assert chain["best"] == "relu#s0.i2" and chain["best_hash"] == rows["relu#s0.i2"]["candidate_hash"]
    assert chain["stopped"] == "correct" and run["generation"]["model_calls"] == 3
    assert run["generation"]["prompt_tokens"] == sum(g["usage"]["prompt_tokens"] for g in generations)


def test_refine_retries_replies_that_are_not_one_good_block_and_gives_up(server, tmp_path):
    script = server({"relu": [replies.PROSE_ONLY, replies.TWO_BLOCKS, replies.WRONG_NAME, replies.CORRECT]})
    result, run = _run("refine", tmp_path, iterations=6, max_repairs=2)
    assert [r["status"] for r in result.rows] == ["REJECTED_STATIC"] * 3
    assert [r["message"] for r in result.rows] == [
        "has_code: the reply contains no code block", "triton_kernel: no @triton.jit kernel is defined",
        "entry_point: no top-level function `relu` is defined"]
    asked = script.completions()
    assert len(asked) == 3, "two repairs after the first failure, then the chain gives up"
    assert "no code block" in _last_user(asked[1])
    assert "no @triton.jit kernel" in _last_user(asked[2]) and "Your reply had 2 code blocks" in _last_user(asked[2])
    assert run["generation"]["chains"][0]["stopped"] == "repairs" and run["generation"]["chains"][0]["best"] is None


def test_samples_are_named_stored_and_give_pass_at_k_and_replay_reproduces_them(server, tmp_path):
    script = server({"relu": [replies.CORRECT, replies.WRONG, replies.PROSE_ONLY, replies.CORRECT]})
    result, run = _run("sample", tmp_path, samples=4, temperature=0.7)
    assert sorted(r["candidate"] for r in result.rows) == ["relu#s0", "relu#s1", "relu#s2", "relu#s3"]
    assert len(script.completions()) == 4, "a failed sample is not retried"
    assert all(r["temperature"] == 0.7 for r in script.requests)
    assert pass_at_k_by_task(result.rows, 1) == {"relu": 0.5}
    assert run["generation"]["pass_at_k"] == {"pass@1": 0.5, "pass@4": 1.0}
    assert sorted(r["status"] for r in result.rows) == ["MISMATCH", "PASSED", "PASSED", "REJECTED_STATIC"]

    replayed, replay_run = _run("sample", tmp_path / "replay", samples=4, model=f"replay:run:{result.run_id}")
    assert len(script.requests) == 4, "replay asks no model"
    assert ({r["candidate"]: r["candidate_hash"] for r in replayed.rows}
            == {r["candidate"]: r["candidate_hash"] for r in result.rows})
    assert replay_run["generation"]["provider"] == f"replay:run:{result.run_id}"


def test_oneshot_asks_once_per_task(server, tmp_path, capsys):
    script = server({"relu": [replies.CORRECT]})
    result, run = _run("oneshot", tmp_path)
    assert [(r["candidate"], r["status"]) for r in result.rows] == [("relu#s0", "PASSED")]
    assert len(script.requests) == 1 and run["method"] == "oneshot"
    assert result.rows[0]["provenance"]["response"] == replies.CORRECT
    assert result.rows[0]["provenance"]["model"] == "openai:scripted"
    assert main(["runs", "show", result.run_id]) == 0
    assert f"model calls  1, 102 prompt + {len(replies.CORRECT)} completion tokens, unpriced" in capsys.readouterr().out


def test_generation_flags_are_checked(tmp_path):
    from kbx.errors import KbxError

    with pytest.raises(KbxError, match="--samples"):
        GenerationSettings("openai:x", samples=0)
    options = RunOptions(out_dir=tmp_path, device="cpu", tasks=("relu",))
    with pytest.raises(KbxError, match="needs --model"):
        run_method("refine", options, progress=None)
    with pytest.raises(KbxError, match="use --method sample"):
        run_method("oneshot", RunOptions(out_dir=tmp_path, device="cpu", tasks=("relu",),
                                         generation=GenerationSettings("replay:x.jsonl", samples=2)), progress=None)
    assert Path(tmp_path).exists()


def test_a_run_whose_every_request_is_refused_evaluated_nothing_and_says_so(server, tmp_path, capsys):
    """HTTP 400 for every request (a setting the model refuses): each chain ends, nothing is evaluated, and the run
    does not exit 0."""
    server({"relu": [Refusal(400)]})
    code = main(["run", "--method", "oneshot", "--model", "openai:scripted", "--tasks", "relu", "--device", "cpu",
                 "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 1 and "the run evaluated nothing" in err, err[-2000:]
