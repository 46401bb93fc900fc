"""Extract Python code from a raw LLM reply.

Fenced blocks of any flavour are found (``` or ~~~, any info string, an unterminated last block included). The last
block that defines the entry point (a function, or a KernelBench `ModelNew` class) wins; with none defining it, the
last Python-looking block is returned so the static stage can say what is missing. A reply with no fenced block is
taken whole only when it parses as Python and defines the entry point.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from kbx import syntax

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\n`]*)$", re.MULTILINE)
_NOT_PYTHON = {"bash", "sh", "shell", "console", "text", "json", "yaml", "cpp", "c++", "cuda", "c", "diff"}


@dataclass(frozen=True)
class Extraction:
    """Code from a reply, or the reason there is none."""

    code: str | None
    problem: str | None = None
    blocks: int = 0
    """How many fenced blocks the reply had."""


def extract_code(response: str, entry_point: str) -> Extraction:
    """Pick the code block of `response` that defines `entry_point`."""
    blocks = [(info, body) for info, body in _fenced_blocks(response) if body.strip()]
    if not blocks:
        if _defines(response, entry_point):
            return Extraction(code=response.strip() + "\n")
        return Extraction(code=None, problem="the reply contains no code block")
    candidates = [code for info, code in blocks if info.lower() not in _NOT_PYTHON]
    if not candidates:
        return Extraction(code=None, problem="the reply has code blocks but none in Python", blocks=len(blocks))
    defining = [code for code in candidates if _defines(code, entry_point)]
    chosen = defining[-1] if defining else candidates[-1]
    return Extraction(code=chosen, blocks=len(blocks))


def _fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(info string, body) of every fenced block, in order."""
    blocks = []
    pos = 0
    while True:
        opening = _FENCE.search(text, pos)
        if opening is None:
            return blocks
        fence, info = opening.group(1), opening.group(2).strip()
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE)
        end = closing.search(text, opening.end())
        body_end = end.start() if end else len(text)
        blocks.append((info.split()[0] if info else "", text[opening.end() + 1 : body_end]))
        if end is None:
            return blocks
        pos = end.end()


def _defines(code: str, entry_point: str) -> bool:
    try:
        tree = syntax.parse(code)
    except SyntaxError:
        return bool(re.search(rf"^(def|class)\s+{re.escape(entry_point)}\b", code, re.MULTILINE))
    return any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == entry_point for n in tree.body)
