"""A local OpenAI-compatible chat-completions server that plays scripted replies, for tests (port 0, a thread)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Refusal:
    """An HTTP error answer instead of a reply."""

    status: int
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass
class Script:
    """Replies per task, played in order; the task is read from the first user message."""

    replies: Mapping[str, Sequence[str | Refusal]]
    by_turn: bool = False
    """Pick the reply by the conversation's turn (its assistant messages) rather than by requests served, so a
    request asked again (after a reply was lost to a kill) gets the same reply."""
    requests: list[dict] = field(default_factory=list)
    served: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next(self, body: dict) -> str | Refusal:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        task = re.search(r"the task `(\w+)`", user).group(1)
        with self.lock:
            self.requests.append(body)
            index = self.served.get(task, 0)
            self.served[task] = index + 1
        if self.by_turn:
            index = sum(m["role"] == "assistant" for m in body["messages"])
        replies = self.replies[task]
        return replies[min(index, len(replies) - 1)]

    def completions(self) -> list[dict]:
        """The requests that were answered with a reply (not refused)."""
        return [r for r in self.requests if not r.get("refused")]


Answer = tuple[int, Mapping[str, str], dict | bytes]
"""(HTTP status, extra headers, JSON body) of one answer; bytes are sent as they are."""


@contextmanager
def http_server(answer: Callable[[str, Mapping[str, str], dict], Answer]) -> Iterator[str]:
    """A JSON POST server on a free local port calling `answer(path, headers, body)`; yields its root URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            status, headers, reply = answer(self.path, self.headers, body)
            payload = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
            self.send_response(status)
            for name, value in {**headers, "Content-Type": "application/json",
                                "Content-Length": str(len(payload))}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve(script: Script) -> Iterator[str]:
    """Serve `script` as OpenAI chat completions; yields the base URL (`http://127.0.0.1:PORT/v1`)."""

    def answer(path: str, headers: Mapping[str, str], body: dict) -> Answer:
        assert path == "/v1/chat/completions", path
        assert headers["Authorization"] == "Bearer test-key"
        reply = script.next(body)
        if isinstance(reply, Refusal):
            body["refused"] = True
            return reply.status, reply.headers, {"error": {"message": "slow down"}}
        return 200, {}, {
            "id": "cmpl-test", "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": reply}}],
            "usage": {"prompt_tokens": 100 + len(body["messages"]), "completion_tokens": len(reply)},
        }

    with http_server(answer) as root:
        yield f"{root}/v1"
