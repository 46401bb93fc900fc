"""`ast.parse` behind one process-wide lock.

CPython 3.11 keeps the AST constructor's recursion-depth count in per-interpreter state, so two threads parsing at
once can corrupt it, and one of them fails with `SystemError: AST constructor recursion depth mismatch`
(python/cpython#106905 and the 3.11 reports around it; seen once in our CI, in a generating run's parallel chains).
kbx parses candidates on several threads (parallel evaluations, generating chains), so every parse in the package
goes through `parse`; a parse takes milliseconds, so the lock costs nothing measurable.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(source, filename)`, one thread at a time."""
    with _LOCK:
        return ast.parse(source, filename=filename)
