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


class Unparsable(SyntaxError):
    """Source the parser gave up on (nesting past its recursion limit, a parser stack overflow): hostile input,
    raised as a SyntaxError so that every caller that handles bad syntax handles it too."""


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(source, filename)`, one thread at a time.

    Raises:
        SyntaxError: the source is not Python; `Unparsable` when the parser ran out of depth or memory on it.
    """
    with _LOCK:
        try:
            return ast.parse(source, filename=filename)
        except (RecursionError, MemoryError) as exc:
            raise Unparsable(f"too deeply nested to parse ({type(exc).__name__})") from None
