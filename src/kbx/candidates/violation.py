"""What a static rule reports, and what every rule reads: shared by `anticheat` and `fallbacks`."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from kbx.candidates.names import Names

FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
"""The AST nodes of a function definition."""


@dataclass(frozen=True)
class Violation:
    """A broken rule, with where and why."""

    rule: str
    line: int
    reason: str

    def message(self) -> str:
        return f"{self.rule} (line {self.line}): {self.reason}"


@dataclass(frozen=True)
class Source:
    """A parsed candidate as the rules see it."""

    tree: ast.Module
    names: Names
    forbidden: frozenset[str]
    """Normalised forbidden operation names of the task."""
    extensions: frozenset[str] = frozenset()
    """Module-level names bound to the candidate's own compiled extensions (`kbx.candidates.cuda`): calling one
    of their functions runs the candidate's code, whatever the function's name."""
