"""The `reference` method: each task's own solution.py, the oracle row of every report."""

from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType

from kbx.candidates.source import Candidate
from kbx.methods.registry import Method, method
from kbx.tasks.spec import Task


@method("reference")
class Reference(Method):
    summary = "the suite's own solutions (the default)"

    def candidates(self, tasks: Sequence[Task]) -> list[tuple[Task, Candidate]]:
        pairs = []
        for task in tasks:
            path = task.solution_file
            code = path.read_text() if path.is_file() else None
            provenance = MappingProxyType({"method": "reference", "path": str(path)})
            problem = None if code is not None else f"{path} is missing"
            pairs.append((task, Candidate(str(path), task.name, code, provenance=provenance, problem=problem)))
        return pairs
