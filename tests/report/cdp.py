"""A tiny Chrome DevTools Protocol client over the standard library (a websocket of text frames), for browser tests.

Only what the report's browser test needs: evaluate JavaScript in the page, and capture a screenshot.
"""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import struct
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any


class Browser:
    """Headless Chromium showing one page, driven over its DevTools websocket."""

    def __init__(self, executable: str, profile: Path, size: tuple[int, int] = (1300, 1000)) -> None:
        self._proc = subprocess.Popen(
            [executable, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--remote-debugging-port=0",
             f"--user-data-dir={profile}", f"--window-size={size[0]},{size[1]}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        self._next_id = 0
        try:
            port = self._port()
            self._sock = self._connect(port)
        except BaseException:
            self.close()
            raise

    def _port(self) -> int:
        deadline = time.monotonic() + 30
        assert self._proc.stderr is not None
        while time.monotonic() < deadline:
            line = self._proc.stderr.readline()
            found = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if found:
                return int(found.group(1))
            if not line and self._proc.poll() is not None:
                break
        raise RuntimeError("chromium did not open its DevTools port")

    def _connect(self, port: int) -> socket.socket:
        deadline = time.monotonic() + 30
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as reply:
                pages = [t for t in json.load(reply) if t.get("type") == "page"]
            if pages or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        path = pages[0]["webSocketDebuggerUrl"].split(f":{port}", 1)[1]
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"websocket refused: {head[:200]!r}")
        return sock

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command and return its result (events received meanwhile are dropped)."""
        self._next_id += 1
        self._send(json.dumps({"id": self._next_id, "method": method, "params": params}).encode())
        while True:
            message = json.loads(self._receive())
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited if it is a promise)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url: str, timeout_s: float = 30.0) -> None:
        """Navigate to `url` and wait until its document has loaded (its load-time scripts ran)."""
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + timeout_s
        while self.evaluate("location.href") != url or self.evaluate("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not load in {timeout_s:.0f}s")
            time.sleep(0.05)

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        if getattr(self, "_sock", None) is not None:
            self._sock.close()
        self._proc.terminate()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _send(self, payload: bytes) -> None:
        mask = os.urandom(4)
        n = len(payload)
        header = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n)
                                  if n < 65536 else bytes([0x80 | 127]) + struct.pack(">Q", n))
        self._sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _receive(self) -> bytes:
        message = b""
        while True:
            first, second = self._exact(2)
            n = second & 0x7F
            if n == 126:
                (n,) = struct.unpack(">H", self._exact(2))
            elif n == 127:
                (n,) = struct.unpack(">Q", self._exact(8))
            message += self._exact(n)
            if first & 0x80:  # FIN
                return message

    def _exact(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self._sock.recv(n - len(out))
            if not chunk:
                raise RuntimeError("chromium closed the websocket")
            out += chunk
        return out
