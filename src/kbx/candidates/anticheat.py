"""Static anti-cheat rules: constructs an honest Triton candidate never needs (issue 4, static layer).

Each rule has a name and a reason; the first rule a candidate breaks rejects it as REJECTED_STATIC before anything
runs. The rules are deliberately about capabilities (introspection, processes, threads, side streams, dynamic
code, patching other modules), not about style, so that no honest kernel trips them: the suite's own solutions
are the false-positive test. Runtime defences (audit hook, identity snapshots, launch counting) live in the
candidate worker.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Violation:
    """A broken rule, with where and why."""

    rule: str
    line: int
    reason: str

    def message(self) -> str:
        return f"{self.rule} (line {self.line}): {self.reason}"


FORBIDDEN_MODULES: dict[str, str] = {
    "ctypes": "raw memory and foreign calls bypass every check",
    "gc": "walking the heap can find reference outputs and harness state",
    "inspect": "frame and source introspection can reach the harness",
    "subprocess": "child processes escape the sandbox",
    "socket": "no network access is needed to compute a kernel",
    "threading": "background threads can do work outside the timed call",
    "multiprocessing": "other processes can do work outside the timed call",
    "concurrent": "executors run work outside the timed call",
    "importlib": "dynamic imports hide what the candidate uses",
    "signal": "signal handlers can interfere with the harness",
    "pickle": "unpickling runs arbitrary code",
    "marshal": "loading code objects hides what runs",
}
"""Modules whose import is rejected, with the reason."""

FORBIDDEN_CALLS: dict[str, str] = {
    "os.system": "shell commands escape the sandbox",
    "os.popen": "shell commands escape the sandbox",
    "os.fork": "child processes escape the sandbox",
    "os.execv": "replacing the process escapes the sandbox",
    "os.execve": "replacing the process escapes the sandbox",
    "os.spawnv": "child processes escape the sandbox",
    "os.environ": "the environment is not an input of the task",
    "os.getenv": "the environment is not an input of the task",
    "os.kill": "signalling other processes can kill the harness",
    "os.killpg": "signalling other processes can kill the harness",
    "sys._getframe": "frame introspection can reach the harness",
    "sys.modules": "reaching other modules through sys.modules can find the reference",
    "torch.cuda.Stream": "side streams hide work from the timed stream",
    "torch.cuda.stream": "side streams hide work from the timed stream",
    "torch.cuda.set_stream": "side streams hide work from the timed stream",
    "torch.library": "registering operators can replace what the harness calls",
    "torch.utils.cpp_extension": "compiled extensions are not Triton kernels",
}
"""Dotted names (module attributes) whose use is rejected, with the reason."""

DYNAMIC_BUILTINS: dict[str, str] = {
    "__import__": "dynamic imports hide what the candidate uses",
    "exec": "executing strings hides what runs",
    "eval": "evaluating strings hides what runs",
    "compile": "compiling strings hides what runs",
    "globals": "rewriting module globals at run time hides what runs",
    "breakpoint": "debuggers do not belong in a kernel",
}
"""Builtins whose call is rejected."""


def find_violation(tree: ast.Module) -> Violation | None:
    """The first rule the candidate's source breaks, or None."""
    aliases = _module_aliases(tree)
    for rule in _RULES:
        for violation in rule(tree, aliases):
            return violation
    return None


def _module_aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted module/attribute it is bound to by imports (`import torch as T` -> T: torch)."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    return aliases


def _forbidden_imports(tree: ast.Module, aliases: dict[str, str]) -> Iterator[Violation]:
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            root = name.split(".")[0]
            if root in FORBIDDEN_MODULES:
                yield Violation("forbidden_import", node.lineno, f"imports {name}: {FORBIDDEN_MODULES[root]}")
            dotted = _forbidden_prefix(name)
            if dotted:
                yield Violation("forbidden_call", node.lineno, f"imports {name}: {FORBIDDEN_CALLS[dotted]}")


def _forbidden_attributes(tree: ast.Module, aliases: dict[str, str]) -> Iterator[Violation]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Name)) and isinstance(node.ctx, ast.Load):
            dotted = _resolve(node, aliases)
            hit = _forbidden_prefix(dotted) if dotted else None
            if hit:
                yield Violation("forbidden_call", node.lineno, f"uses {dotted}: {FORBIDDEN_CALLS[hit]}")


def _dynamic_code(tree: ast.Module, aliases: dict[str, str]) -> Iterator[Violation]:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in DYNAMIC_BUILTINS
            and node.func.id not in aliases
        ):
            yield Violation("dynamic_code", node.lineno, f"calls {node.func.id}(): {DYNAMIC_BUILTINS[node.func.id]}")
        if isinstance(node, ast.Name) and node.id in {"__builtins__", "builtins"}:
            yield Violation("dynamic_code", node.lineno, "reaches into builtins: hides what runs")
        if isinstance(node, ast.Call) and _is_computed_getattr(node, aliases):
            yield Violation("dynamic_code", node.lineno, "getattr with a computed name on a module hides what runs")


def _patches_modules(tree: ast.Module, aliases: dict[str, str]) -> Iterator[Violation]:
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            if isinstance(target, ast.Attribute):
                dotted = _resolve(target.value, aliases)
                if dotted is not None:
                    yield Violation(
                        "patches_module", node.lineno,
                        f"assigns to {dotted}.{target.attr}: changing imported modules changes the harness too",
                    )
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"setattr", "delattr"}
            and node.args
            and _resolve(node.args[0], aliases) is not None
        ):
            yield Violation("patches_module", node.lineno, f"{node.func.id} on an imported module")


_RULES: tuple[Callable[[ast.Module, dict[str, str]], Iterator[Violation]], ...] = (
    _forbidden_imports,
    _forbidden_attributes,
    _dynamic_code,
    _patches_modules,
)


def _resolve(node: ast.expr, aliases: dict[str, str]) -> str | None:
    """The dotted name an expression like `T.cuda.Stream` stands for, when its root is an imported name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id], *reversed(parts)])


def _forbidden_prefix(dotted: str) -> str | None:
    for name in FORBIDDEN_CALLS:
        if dotted == name or dotted.startswith(name + "."):
            return name
    return None


def _is_computed_getattr(node: ast.Call, aliases: dict[str, str]) -> bool:
    """`getattr(<imported module>, <not a string literal>)`: a module attribute chosen at run time."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2):
        return False
    if _resolve(node.args[0], aliases) is None:
        return False
    return not (isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str))
