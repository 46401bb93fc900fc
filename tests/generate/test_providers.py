"""Providers over HTTP against local servers: replies, usage, retries with Retry-After, errors, keys, replay."""

from __future__ import annotations

import json

import pytest

from kbx.cli import main
from kbx.errors import KbxError
from kbx.generate.http import HttpClient, ProviderError
from kbx.generate.providers import Key, Message, Request, Throttled, Usage, open_provider, replay_records
from tests.generate.server import Refusal, Script, http_server, serve

REQUEST = Request((Message("system", "be brief"), Message("user", "Write ... the task `relu` ...")), Key("relu"))


@pytest.fixture
def openai_env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return monkeypatch


def test_openai_reply_usage_and_request_body(openai_env):
    script = Script({"relu": ["```python\nx = 1\n```"]})
    with serve(script) as url:
        openai_env.setenv("KBX_OPENAI_BASE_URL", url)
        reply = open_provider("openai:tiny").complete(Request(REQUEST.messages, REQUEST.key, 0.5, 99))
    assert reply.text == "```python\nx = 1\n```" and reply.finish_reason == "stop" and reply.attempts == 1
    assert reply.usage == Usage(102, len(reply.text))
    (body,) = script.requests
    assert body["model"] == "tiny" and body["temperature"] == 0.5 and body["max_tokens"] == 99
    assert [m["role"] for m in body["messages"]] == ["system", "user"]


def test_the_max_tokens_field_can_be_renamed(openai_env):
    script = Script({"relu": ["ok"]})
    with serve(script) as url:
        openai_env.setenv("KBX_OPENAI_BASE_URL", url)
        openai_env.setenv("KBX_OPENAI_MAX_TOKENS_FIELD", "max_completion_tokens")
        open_provider("openai:tiny").complete(REQUEST)
    assert script.requests[0]["max_completion_tokens"] == 8192 and "max_tokens" not in script.requests[0]


def test_429_is_retried_after_the_servers_retry_after(openai_env):
    script = Script({"relu": [Refusal(429, {"Retry-After": "7"}), Refusal(503), "done"]})
    waits: list[float] = []
    with serve(script) as url:
        openai_env.setenv("KBX_OPENAI_BASE_URL", url)
        client = HttpClient(sleep=waits.append, base_delay_s=0.5)
        reply = open_provider("openai:tiny", client).complete(REQUEST)
    assert reply.text == "done" and reply.attempts == 3 and len(script.requests) == 3
    assert waits[0] == 7.0, "Retry-After is honoured"
    assert 0.0 <= waits[1] <= 1.0, "without Retry-After: jitter below base * 2**(attempt-1)"


def test_retries_give_up_after_max_attempts_with_one_line(openai_env):
    script = Script({"relu": [Refusal(500)]})
    with serve(script) as url:
        openai_env.setenv("KBX_OPENAI_BASE_URL", url)
        provider = open_provider("openai:tiny", HttpClient(sleep=lambda s: None, max_attempts=3))
        with pytest.raises(ProviderError, match=r"HTTP 500 after 3 attempts: slow down"):
            provider.complete(REQUEST)
    assert len(script.requests) == 3


def test_a_client_error_is_not_retried(openai_env):
    script = Script({"relu": [Refusal(401)]})
    with serve(script) as url:
        openai_env.setenv("KBX_OPENAI_BASE_URL", url)
        with pytest.raises(ProviderError, match="HTTP 401"):
            open_provider("openai:tiny", HttpClient(sleep=lambda s: None)).complete(REQUEST)
    assert len(script.requests) == 1


@pytest.mark.parametrize(("spec", "variable"), [("openai:gpt-4.1", "OPENAI_API_KEY"),
                                                 ("anthropic:claude-x", "ANTHROPIC_API_KEY")])
def test_a_missing_key_is_one_line_at_the_cli(spec, variable, monkeypatch, capsys, tmp_path):
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "KBX_OPENAI_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    code = main(["run", "--method", "oneshot", "--model", spec, "--tasks", "relu", "--device", "cpu",
                 "--out", str(tmp_path), "--store", str(tmp_path / "k.db")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kbx: error:") and variable in err and len(err.splitlines()) == 1


def test_an_unknown_provider_kind_is_a_user_error():
    with pytest.raises(KbxError, match="KIND:MODEL"):
        open_provider("gemini:x")


def test_anthropic_messages_api(monkeypatch):
    seen: list[tuple] = []

    def answer(path, headers, body):
        seen.append((path, headers["x-api-key"], headers["anthropic-version"], body))
        return 200, {}, {"model": "claude-x", "stop_reason": "end_turn",
                         "content": [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "ok"}],
                         "usage": {"input_tokens": 11, "output_tokens": 2}}

    with http_server(answer) as root:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "ak")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", root)
        reply = open_provider("anthropic:claude-x").complete(REQUEST)
    assert reply.text == "ok" and reply.usage == Usage(11, 2) and reply.finish_reason == "end_turn"
    ((path, key, version, body),) = seen
    assert path == "/v1/messages" and key == "ak" and version == "2023-06-01"
    assert body["system"] == "be brief" and [m["role"] for m in body["messages"]] == ["user"]


def test_throttled_prices_replies_and_counts_calls(monkeypatch, tmp_path):
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"replay:" + str(tmp_path / "r.jsonl"): {"input": 1.0, "output": 1.0}}))
    monkeypatch.setenv("KBX_PRICES", str(table))
    (tmp_path / "r.jsonl").write_text(json.dumps({"task": "relu", "response": "hi",
                                                  "usage": {"prompt_tokens": 10, "completion_tokens": 5}}) + "\n")
    provider = Throttled(open_provider(f"replay:{tmp_path / 'r.jsonl'}"), concurrency=2)
    reply = provider.complete(REQUEST)
    assert reply.text == "hi" and reply.usage.cost_usd == pytest.approx(15 / 1e6) and provider.calls == 1


def test_replay_jsonl_keys_samples_in_order_and_refuses_what_it_lacks(tmp_path):
    path = tmp_path / "replies.jsonl"
    lines = [{"task": "relu", "response": "a"}, {"task": "relu", "response": "b"},
             {"task": "relu", "sample": 0, "iteration": 1, "reply": "c"}]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert {k: r["response"] for k, r in replay_records(path).items()} == {
        Key("relu", 0, 0): "a", Key("relu", 1, 0): "b", Key("relu", 0, 1): "c"}
    provider = open_provider(f"replay:{path}")
    assert provider.complete(Request((), Key("relu", 1))).text == "b"
    with pytest.raises(ProviderError, match="no recorded reply for add sample 0 iteration 0"):
        provider.complete(Request((), Key("add")))
    path.write_text("not json\n")
    with pytest.raises(KbxError, match="not valid JSON"):
        replay_records(path)
