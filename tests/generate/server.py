"""A local OpenAI-compatible chat-completions server that plays scripted replies, for tests (port 0, a thread)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
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
        replies = self.replies[task]
        return replies[min(index, len(replies) - 1)]

    def completions(self) -> list[dict]:
        """The requests that were answered with a reply (not refused)."""
        return [r for r in self.requests if not r.get("refused")]


@contextmanager
def serve(script: Script) -> Iterator[str]:
    """Serve `script`; yields the base URL (`http://127.0.0.1:PORT/v1`)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            assert self.path == "/v1/chat/completions", self.path
            assert self.headers["Authorization"] == "Bearer test-key"
            answer = script.next(body)
            if isinstance(answer, Refusal):
                body["refused"] = True
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                payload = json.dumps({"error": {"message": "slow down"}}).encode()
            else:
                self.send_response(200)
                payload = json.dumps({
                    "id": "cmpl-test", "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": answer}}],
                    "usage": {"prompt_tokens": 100 + len(body["messages"]), "completion_tokens": len(answer)},
                }).encode()
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
