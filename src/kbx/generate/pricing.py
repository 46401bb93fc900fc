"""What a reply cost: an optional price table, in US dollars per million tokens, from `KBX_PRICES`.

`KBX_PRICES` is a JSON object, inline or in a file it names: `{"openai:gpt-4.1": {"input": 2.0, "output": 8.0}}`.
Keys are `KIND:MODEL` or the bare model name. kbx ships no prices of its own: they change too often to be right.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from kbx.errors import KbxError

if TYPE_CHECKING:
    from kbx.generate.providers import Usage

PRICES_ENV = "KBX_PRICES"


@dataclass(frozen=True)
class Price:
    input: float
    """Dollars per million prompt tokens."""
    output: float
    """Dollars per million completion tokens."""


@dataclass(frozen=True)
class Prices:
    table: Mapping[str, Price] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def from_env(cls) -> Prices:
        raw = os.environ.get(PRICES_ENV, "").strip()
        if not raw:
            return cls()
        text = raw if raw.startswith("{") else _read(Path(raw))
        try:
            data = json.loads(text)
            table = {name: Price(float(p["input"]), float(p["output"])) for name, p in data.items()}
        except (ValueError, KeyError, TypeError, AttributeError):
            raise KbxError(f"{PRICES_ENV}: expected {{\"MODEL\": {{\"input\": $/Mtok, \"output\": $/Mtok}}}}") from None
        return cls(MappingProxyType(table))

    def cost(self, provider: str, usage: Usage) -> float | None:
        """Dollars for one reply; None when the model is not priced or the provider reported no usage."""
        price = self.table.get(provider) or self.table.get(provider.partition(":")[2])
        if price is None or usage.prompt_tokens is None or usage.completion_tokens is None:
            return None
        return (usage.prompt_tokens * price.input + usage.completion_tokens * price.output) / 1e6


def _read(path: Path) -> str:
    if not path.is_file():
        raise KbxError(f"{PRICES_ENV}: {path}: no such file")
    return path.read_text()
