"""The package's shape (issue 22's acceptance): imports go one way, cli → running/methods → (generate, evaluation)
→ store → analysis → report, with tasks and timing at the bottom; no file over 400 lines and no function over 60
outside the suite. Read from the source with `ast`, so nothing here imports kbx."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "kbx"

LEAVES = frozenset({"errors", "status", "syntax", "ranking", "summary", "kernelbench_rule"})
"""Shared single modules that import no other part of kbx."""

ALLOWED: dict[str, frozenset[str]] = {
    "kbx": frozenset({"api", "running", "evaluation"}),  # kbx/__init__.py: `kbx.evaluate`, `kbx.run`
    "cli": frozenset({"cli_stored", "api", "running", "methods", "generate", "evaluation", "candidates", "store",
                      "analysis", "report", "tasks", "timing"}),
    "cli_stored": frozenset({"store", "analysis", "report", "tasks", "timing"}),
    "api": frozenset({"running", "methods", "generate", "evaluation", "candidates", "store", "tasks", "timing"}),
    "running": frozenset({"methods", "generate", "evaluation", "candidates", "store", "tasks", "timing"}),
    "methods": frozenset({"generate", "evaluation", "candidates", "tasks", "timing"}),
    # Generation reaches evaluation and the store only through what the runner hands it.
    "generate": frozenset({"candidates", "tasks", "timing"}),
    # The static stage (`candidates`) is the evaluation's first stage; the two share the candidate's nouns.
    "evaluation": frozenset({"candidates", "tasks", "timing"}),
    "candidates": frozenset({"evaluation", "tasks", "timing"}),
    "store": frozenset(),
    "analysis": frozenset({"store", "timing"}),
    "report": frozenset({"analysis", "store"}),
    "tasks": frozenset({"timing"}),
    "timing": frozenset(),
    **{leaf: frozenset() for leaf in LEAVES},
}
"""For each part of kbx (a subpackage or a top-level module), the other parts it may import besides the leaves."""

MAX_FILE_LINES = 400
MAX_FUNCTION_LINES = 60


def _modules() -> Iterator[tuple[Path, ast.Module]]:
    for path in sorted(SRC.rglob("*.py")):
        if path.relative_to(SRC).parts[0] != "suite":
            yield path, ast.parse(path.read_text(), filename=str(path))


def _part(dotted: str) -> str:
    """`kbx.running.runner` → `running`; `kbx.cli` → `cli`; `kbx` → `kbx`."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "kbx"


def _part_of(path: Path) -> str:
    rel = path.relative_to(SRC).with_suffix("")
    return "kbx" if rel.parts == ("__init__",) else rel.parts[0]


def _type_checking_only(tree: ast.Module) -> set[int]:
    """Line numbers of imports under `if TYPE_CHECKING:` (annotations only; nothing is imported at run time)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            lines.update(n.lineno for child in node.body for n in ast.walk(child) if hasattr(n, "lineno"))
    return lines


def _kbx_imports(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, imported module) of every absolute import of kbx, at module level or inside a function."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] if node.module != "kbx" else [f"kbx.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name == "kbx" or name.startswith("kbx."):
                yield node.lineno, name


def import_violations() -> list[str]:
    found = []
    for path, tree in _modules():
        source = _part_of(path)
        allowed = ALLOWED[source] | LEAVES | {source}
        typing_only = _type_checking_only(tree)
        for line, name in _kbx_imports(tree):
            # A bare `import kbx` loads nothing new: the package root is imported before any of its modules.
            if name == "kbx" or line in typing_only:
                continue
            if _part(name) not in allowed:
                found.append(f"{path.relative_to(SRC.parent)}:{line} ({source}) imports {name}")
    return found


def test_every_part_of_kbx_has_its_place_in_the_direction():
    parts = {_part_of(path) for path, _ in _modules()}
    assert parts - set(ALLOWED) == set(), "place each new package in ALLOWED"


def test_no_import_goes_against_the_direction():
    assert import_violations() == []


def test_the_direction_check_sees_an_import_against_it(tmp_path, monkeypatch):
    """The check itself can fail: a store module that imports the runner is reported, one under TYPE_CHECKING
    or a bare `import kbx` is not."""
    fake = tmp_path / "kbx"
    (fake / "store").mkdir(parents=True)
    (fake / "store" / "bad.py").write_text(
        "from typing import TYPE_CHECKING\nimport kbx\nif TYPE_CHECKING:\n    from kbx.report import html\n\n"
        "def f():\n    from kbx.running.runner import run\n")
    monkeypatch.setattr(sys.modules[__name__], "SRC", fake)
    assert import_violations() == ["kbx/store/bad.py:7 (store) imports kbx.running.runner"]


def test_no_file_over_400_lines_outside_the_suite():
    lengths = {str(path.relative_to(SRC)): len(path.read_text().splitlines()) for path, _ in _modules()}
    long = {name: n for name, n in lengths.items() if n > MAX_FILE_LINES}
    assert long == {}


def test_no_function_over_60_lines_outside_the_suite():
    long = {}
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(SRC)}:{node.name}"] = length
    assert long == {}
