"""What generation needs of the store, as interfaces the runner hands it: `kbx.generate` never imports the store.

`RunRecords` is the run's own record (its model calls and evaluations, read to resume and written as chains go);
`StoredGenerations` reads another stored run's model calls (`--model replay:run:RUN`). The runner passes
`kbx.store.db.Store` and a function over it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol


class RunRecords(Protocol):
    def generations(self, run_id: str) -> list[dict[str, Any]]: ...

    def rows(self, run_id: str) -> list[dict[str, Any]]: ...

    def add_generation(self, run_id: str, generation: dict[str, Any]) -> bool: ...

    def usage(self, run_id: str) -> dict[str, Any]: ...


StoredGenerations = Callable[[str], tuple[str, list[dict[str, Any]]]]
"""A stored run's id (from an id or unique prefix) and its model calls in order; raises KbxError for no such run."""
