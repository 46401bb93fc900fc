"""JSON over HTTP with retries, against a local server started in the test (providers over it:
tests/generate/test_providers.py)."""

from __future__ import annotations

import email.utils
import random
import time

import pytest

from kbx.generate.http import HttpClient, ProviderError, parse_retry_after
from tests.generate.server import http_server


def _answers(*answers):
    """A server answering each POST with the next of `answers` (the last one again when they run out); the requests
    it saw as (path, headers, body)."""
    seen = []

    def answer(path, headers, body):
        seen.append((path, dict(headers), body))
        return answers[min(len(seen), len(answers)) - 1]

    return answer, seen


def test_posts_json_with_the_headers_given_and_returns_the_reply_and_its_attempts():
    answer, seen = _answers((200, {}, {"ok": [1, 2]}))
    with http_server(answer) as root:
        reply = HttpClient().post(f"{root}/v1/x", {"Authorization": "Bearer k"}, {"model": "m"})
    assert reply == ({"ok": [1, 2]}, 1)
    ((path, headers, body),) = seen
    assert path == "/v1/x" and body == {"model": "m"}
    assert headers["Authorization"] == "Bearer k" and headers["Content-Type"] == "application/json"


@pytest.mark.parametrize("status", [429, 500, 503, 529])
def test_retryable_statuses_are_retried_with_jitter_under_a_doubling_cap(status):
    answer, seen = _answers((status, {}, {}), (status, {}, {}), (status, {}, {}), (200, {}, {"done": True}))
    waits: list[float] = []
    client = HttpClient(sleep=waits.append, base_delay_s=0.5, rng=random.Random(3))
    with http_server(answer) as root:
        assert client.post(root, {}, {}) == ({"done": True}, 4)
    assert len(seen) == 4 and len(waits) == 3
    assert all(0.0 <= wait <= 0.5 * 2**i for i, wait in enumerate(waits)), waits


def test_retry_after_is_honoured_up_to_the_longest_delay():
    answer, _ = _answers((429, {"Retry-After": "600"}, {}), (200, {}, {}))
    waits: list[float] = []
    with http_server(answer) as root:
        HttpClient(sleep=waits.append, max_delay_s=5.0).post(root, {}, {})
    assert waits == [5.0]


def test_a_client_error_raises_the_servers_message_on_one_line_with_its_status():
    answer, seen = _answers((404, {}, {"error": {"message": "no such\n   model: tiny"}}))
    with http_server(answer) as root, pytest.raises(ProviderError) as raised:
        HttpClient(sleep=lambda s: None).post(root, {}, {})
    assert str(raised.value) == f"{root}: HTTP 404: no such model: tiny"
    assert raised.value.status == 404 and len(seen) == 1


def test_an_error_body_that_is_not_json_is_shown_as_sent():
    answer, _ = _answers((400, {}, b"bad request: prompt too long"))
    with http_server(answer) as root, pytest.raises(ProviderError, match="HTTP 400: bad request: prompt too long$"):
        HttpClient().post(root, {}, {})


def test_a_reply_that_is_not_json_fails_at_once():
    answer, seen = _answers((200, {}, b"<html>gateway</html>"))
    with http_server(answer) as root, pytest.raises(ProviderError, match="the reply is not JSON") as raised:
        HttpClient(sleep=lambda s: None).post(root, {}, {})
    assert raised.value.status is None and len(seen) == 1


def test_connection_errors_are_retried():
    waits: list[float] = []
    client = HttpClient(sleep=waits.append, max_attempts=2, timeout_s=2)
    with pytest.raises(ProviderError, match="after 2 attempts"):
        client.post("http://127.0.0.1:9/v1/chat/completions", {}, {})
    assert len(waits) == 1


def test_retry_after_as_an_http_date_and_garbage():
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    assert parse_retry_after("2.5") == 2.5


def test_retry_after_as_a_future_http_date_is_the_seconds_until_then():
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25.0 <= parse_retry_after(later) <= 30.0
    assert parse_retry_after("-4") == 0.0
