"""Model providers behind one small interface: `complete(Request) -> Reply`.

A provider is named `KIND:MODEL` (`openai:gpt-4.1`, `anthropic:claude-sonnet-4-5`, `replay:run:3f2a9c`). Each kind
is a small class registered in `PROVIDERS`; `open_provider` checks its configuration (keys, files) before the run
starts, so a missing key is one line, not a failure after the evaluators are up.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

from kbx.errors import KbxError
from kbx.generate.http import HttpClient, ProviderError
from kbx.generate.pricing import Prices
from kbx.generate.records import StoredGenerations


@dataclass(frozen=True)
class Message:
    """One turn of a conversation."""

    role: str
    """`system`, `user` or `assistant`."""
    content: str

    def to_json(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class Key:
    """Which generation of a run a request is for: replay looks replies up by it, live models ignore it."""

    task: str
    sample: int = 0
    iteration: int = 0


@dataclass(frozen=True)
class Request:
    messages: tuple[Message, ...]
    key: Key
    temperature: float | None = None
    """None: the provider's default."""
    max_tokens: int = 8192


@dataclass(frozen=True)
class Usage:
    """Token accounting for one reply, as the provider reported it (None where it did not)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    """From `KBX_PRICES` when the model is priced there."""

    def to_json(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "cost_usd": self.cost_usd}


@dataclass(frozen=True)
class Reply:
    """What the model said, and what saying it cost."""

    text: str
    usage: Usage = Usage()
    model: str = ""
    """The model as the provider named it in its reply."""
    finish_reason: str | None = None
    attempts: int = 1
    """HTTP attempts it took (retries after 429/5xx/connection errors included); 0 for a replayed reply."""
    latency_s: float = 0.0
    raw: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """The provider's whole JSON reply (reasoning text and all), for the record."""


class Provider(Protocol):
    name: str
    """`KIND:MODEL`, as given."""

    def complete(self, request: Request) -> Reply: ...


class OpenAIProvider:
    """OpenAI-compatible chat completions: OpenAI, vLLM, SGLang, Ollama, DeepSeek, OpenRouter and the like."""

    DEFAULT_BASE = "https://api.openai.com/v1"

    def __init__(self, model: str, client: HttpClient) -> None:
        self.name = f"openai:{model}"
        self.model = model
        self.client = client
        self.base_url = (os.environ.get("KBX_OPENAI_BASE_URL") or os.environ.get("OPENAI_BASE_URL")
                         or self.DEFAULT_BASE).rstrip("/")
        self.key = os.environ.get("OPENAI_API_KEY")
        if not self.key and self.base_url == self.DEFAULT_BASE:
            raise KbxError(f"{self.name} needs OPENAI_API_KEY (or KBX_OPENAI_BASE_URL for a local server)")
        # OpenAI's own API refuses `max_tokens` for its reasoning models; compatible servers may not know the new name.
        default_field = "max_completion_tokens" if self.base_url == self.DEFAULT_BASE else "max_tokens"
        self.max_tokens_field = os.environ.get("KBX_OPENAI_MAX_TOKENS_FIELD") or default_field

    def complete(self, request: Request) -> Reply:
        body: dict[str, Any] = {"model": self.model, "messages": [m.to_json() for m in request.messages],
                                self.max_tokens_field: request.max_tokens}
        if request.temperature is not None:
            body["temperature"] = request.temperature
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        start = time.monotonic()
        data, attempts = self.client.post(f"{self.base_url}/chat/completions", headers, body)
        try:
            choice = data["choices"][0]
            text = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ProviderError(f"{self.name}: unexpected reply {json.dumps(data)[:300]}") from None
        usage = data.get("usage") or {}
        return Reply(text, Usage(usage.get("prompt_tokens"), usage.get("completion_tokens")),
                     str(data.get("model") or self.model), choice.get("finish_reason"), attempts,
                     time.monotonic() - start, MappingProxyType(data))


class AnthropicProvider:
    """The Anthropic Messages API."""

    DEFAULT_BASE = "https://api.anthropic.com"
    VERSION = "2023-06-01"

    def __init__(self, model: str, client: HttpClient) -> None:
        self.name = f"anthropic:{model}"
        self.model = model
        self.client = client
        self.base_url = (os.environ.get("ANTHROPIC_BASE_URL") or self.DEFAULT_BASE).rstrip("/")
        self.key = os.environ.get("ANTHROPIC_API_KEY")
        if not self.key:
            raise KbxError(f"{self.name} needs ANTHROPIC_API_KEY")

    def complete(self, request: Request) -> Reply:
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        body: dict[str, Any] = {"model": self.model, "max_tokens": request.max_tokens,
                                "messages": [m.to_json() for m in request.messages if m.role != "system"]}
        if system:
            body["system"] = system
        if request.temperature is not None:
            body["temperature"] = request.temperature
        headers = {"x-api-key": str(self.key), "anthropic-version": self.VERSION}
        start = time.monotonic()
        data, attempts = self.client.post(f"{self.base_url}/v1/messages", headers, body)
        blocks = data.get("content")
        if not isinstance(blocks, list):
            raise ProviderError(f"{self.name}: unexpected reply {json.dumps(data)[:300]}")
        text = "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
        usage = data.get("usage") or {}
        return Reply(text, Usage(usage.get("input_tokens"), usage.get("output_tokens")),
                     str(data.get("model") or self.model), data.get("stop_reason"), attempts,
                     time.monotonic() - start, MappingProxyType(data))


class ReplayProvider:
    """Recorded replies, looked up by (task, sample, iteration): a JSONL file or a stored run's generations.

    `replay:FILE.jsonl` reads `{"task", "response", "sample"?, "iteration"?, "usage"?}` lines (a line without a
    sample is the task's next sample); `replay:run:RUN` reads the generations of run RUN in the store.
    """

    def __init__(self, source: str, records: Mapping[Key, Mapping[str, Any]]) -> None:
        self.name = f"replay:{source}"
        self._records = records

    def complete(self, request: Request) -> Reply:
        record = self._records.get(request.key)
        if record is None:
            k = request.key
            raise ProviderError(f"{self.name}: no recorded reply for {k.task} sample {k.sample} iteration "
                                f"{k.iteration}")
        usage = record.get("usage") or {}
        return Reply(str(record["response"]), Usage(usage.get("prompt_tokens"), usage.get("completion_tokens")),
                     str(record.get("model") or self.name), record.get("finish_reason"), 0, 0.0,
                     MappingProxyType({"replayed_from": self.name}))


def replay_records(path: Path) -> dict[Key, dict[str, Any]]:
    """The records of a replay JSONL file by key."""
    if not path.is_file():
        raise KbxError(f"replay: {path}: no such file")
    records: dict[Key, dict[str, Any]] = {}
    next_sample: dict[str, int] = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise KbxError(f"replay: {path}:{number}: not valid JSON ({exc.msg})") from None
        text = record.get("response", record.get("reply")) if isinstance(record, dict) else None
        if not isinstance(record.get("task"), str) or not isinstance(text, str):
            raise KbxError(f"replay: {path}:{number}: expected {{\"task\": ..., \"response\": ...}}")
        task = record["task"]
        sample = int(record.get("sample", next_sample.get(task, 0)))
        next_sample[task] = sample + 1
        records[Key(task, sample, int(record.get("iteration", 0)))] = {**record, "response": text}
    return records


ProviderFactory = Callable[[str, HttpClient, "StoredGenerations | None"], Provider]


def _replay(target: str, client: HttpClient, stored: StoredGenerations | None) -> Provider:
    if target.startswith("run:"):
        if stored is None:
            raise KbxError("replay:run:RUN reads a stored run: only a run (kbx run, kbx.run) can open the store")
        run_id, generations = stored(target[4:])
        records = {Key(g["task"], g["sample"], g["iteration"]): {**g, "response": g["reply"]} for g in generations}
        return ReplayProvider(f"run:{run_id}", records)
    return ReplayProvider(target, replay_records(Path(target)))


PROVIDERS: dict[str, ProviderFactory] = {
    "openai": lambda model, client, stored: OpenAIProvider(model, client),
    "anthropic": lambda model, client, stored: AnthropicProvider(model, client),
    "replay": _replay,
}
"""Provider kinds by the prefix of `--model KIND:MODEL`."""


def open_provider(spec: str, client: HttpClient | None = None, stored: StoredGenerations | None = None) -> Provider:
    """The provider `spec` names (`KIND:MODEL`), configured from the environment."""
    kind, _, model = spec.partition(":")
    if kind not in PROVIDERS or not model:
        raise KbxError(f"--model {spec!r}: expected KIND:MODEL with KIND one of {', '.join(PROVIDERS)}")
    return PROVIDERS[kind](model, client or HttpClient(), stored)


class Throttled:
    """A provider behind a semaphore (at most `concurrency` requests at once), pricing each reply."""

    def __init__(self, provider: Provider, concurrency: int, prices: Prices | None = None) -> None:
        self.name = provider.name
        self._provider = provider
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self._prices = prices or Prices.from_env()
        self._count = threading.Lock()
        self.calls = 0
        """Requests answered so far (a resumed run's stored generations are not asked again)."""

    def complete(self, request: Request) -> Reply:
        with self._slots:
            reply = self._provider.complete(request)
        with self._count:
            self.calls += 1
        cost = self._prices.cost(self.name, reply.usage)
        return replace(reply, usage=replace(reply.usage, cost_usd=cost)) if cost is not None else reply
