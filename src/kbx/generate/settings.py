"""How a generating run asks its model: kept in the run's config so `--resume` asks the same way."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from kbx.errors import KbxError


@dataclass(frozen=True)
class GenerationSettings:
    model: str
    """`KIND:MODEL`, e.g. `openai:gpt-4.1`, `anthropic:claude-sonnet-4-5`, `replay:run:RUN`."""
    samples: int = 1
    """Independent samples (chains) per task."""
    iterations: int | None = None
    """Model calls per chain at most, for a method that iterates (refine: repair plus optimisation rounds); None
    until the method fills in its default (`kbx.methods.Method.settings`); 1 for the others."""
    temperature: float | None = None
    """None: the provider's default."""
    max_repairs: int = 3
    """refine: consecutive failed attempts after which a chain gives up."""
    concurrency: int = 8
    """Model requests in flight at once."""
    max_tokens: int = 8192
    request_timeout_s: float = 600.0
    backend: str = "triton"
    """What the prompts ask for: `triton` kernels, or `cuda` kernels built with `load_inline`
    (`kbx.generate.prompts.BACKENDS`)."""

    def __post_init__(self) -> None:
        counts = (self.samples, 1 if self.iterations is None else self.iterations, self.concurrency, self.max_tokens)
        if min(counts) < 1:
            raise KbxError("--samples, --iterations, --concurrency and --max-tokens must be >= 1")
        if self.max_repairs < 0 or self.request_timeout_s <= 0:
            raise KbxError("--max-repairs must be >= 0 and --request-timeout > 0")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GenerationSettings:
        return cls(**data)
