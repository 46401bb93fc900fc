"""What the suite expects of its own candidates: `solution.py` passes, `wrong/*.py` fail as they declare."""

from __future__ import annotations

import ast
from pathlib import Path

from kbx import syntax


def expected_status(path: Path) -> str:
    """`PASSED` for a solution; the `EXPECT = "..."` literal of a wrong candidate."""
    if path.name == "solution.py":
        return "PASSED"
    for node in syntax.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "EXPECT" for t in node.targets):
            return str(ast.literal_eval(node.value))
    raise ValueError(f"{path} has no top-level EXPECT = \"<STATUS>\"")
