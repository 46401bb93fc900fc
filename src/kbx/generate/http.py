"""JSON over HTTP with retries: the one place providers touch the network (standard library only).

429, 5xx (and Anthropic's 529 "overloaded") and connection errors are retried with exponential backoff and full
jitter, honouring `Retry-After` when the server sends one; any other HTTP error is the user's to fix (a wrong
key, model or URL) and raises one line.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kbx.errors import KbxError

RETRYABLE = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


class ProviderError(KbxError):
    """A model request that failed for good: the run stops with this line (its stored generations resume)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        """The HTTP status, None for connection errors and unreadable replies."""


@dataclass
class HttpClient:
    """POSTs JSON and returns the decoded JSON body, retrying what is worth retrying."""

    timeout_s: float = 600.0
    """Per request: connecting plus reading the whole reply."""
    max_attempts: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)

    def post(self, url: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """(the reply's JSON, the number of attempts it took)."""
        data = json.dumps(body).encode()
        for attempt in range(1, self.max_attempts + 1):
            request = urllib.request.Request(url, data=data, method="POST",
                                             headers={"Content-Type": "application/json", **headers})
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    return json.loads(response.read().decode()), attempt
            except urllib.error.HTTPError as exc:
                detail = _error_detail(exc)
                if exc.code not in RETRYABLE:
                    raise ProviderError(f"{url}: HTTP {exc.code}: {detail}", exc.code) from None
                if attempt == self.max_attempts:
                    message = f"{url}: HTTP {exc.code} after {attempt} attempts: {detail}"
                    raise ProviderError(message, exc.code) from None
                self.sleep(self._delay(attempt, exc.headers.get("Retry-After")))
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError) as exc:
                if attempt == self.max_attempts:
                    raise ProviderError(f"{url}: {getattr(exc, 'reason', exc)} after {attempt} attempts") from None
                self.sleep(self._delay(attempt, None))
            except json.JSONDecodeError as exc:
                raise ProviderError(f"{url}: the reply is not JSON ({exc.msg})") from None
        raise AssertionError("unreachable")

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        """Retry-After when given (seconds or an HTTP date), else full jitter over an exponential cap."""
        told = parse_retry_after(retry_after)
        if told is not None:
            return min(told, self.max_delay_s)
        return self.rng.uniform(0, min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1)))


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a `Retry-After` header, None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_detail(exc: urllib.error.HTTPError) -> str:
    """The server's own error message when it sent one, on one line."""
    try:
        body = exc.read().decode(errors="replace")
    except OSError:
        return exc.reason or ""
    try:
        error = json.loads(body).get("error", body)
        text = error.get("message", json.dumps(error)) if isinstance(error, dict) else str(error)
    except (ValueError, AttributeError):
        text = body
    return " ".join(text.split())[:300]
