"""What the names in a candidate's source stand for, decided from the source alone (and from the sources of the
installed modules it names, read, never imported).

`Names` maps each local name bound by an import (`import torch.nn.functional as F`) or by a plain assignment of
such a name (`F = torch.nn.functional`, `op = getattr(torch, "relu")`) to the dotted module attribute it stands
for, and knows which functions are `@triton.jit` kernels. The static stage and the anti-cheat rules share it, so
"is this torch?" and "is this a kernel?" are answered one way. `real_name` follows a dotted name through modules
that other modules import (`torch.importlib` is `importlib`).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from collections.abc import Collection, Iterator
from pathlib import Path

from kbx import syntax


class Names:
    """Name resolution for one parsed candidate."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.aliases: dict[str, str] = _import_aliases(tree)
        """Local name -> dotted module attribute it is bound to (`T` -> `torch`, `F` -> `torch.nn.functional`)."""
        self._add_assigned_aliases()
        self.kernels: tuple[ast.FunctionDef, ...] = tuple(
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and any(self._is_jit(d) for d in node.decorator_list)
        )
        """Functions decorated with `triton.jit` (under any alias, with or without arguments)."""
        self._kernel_nodes = {id(n) for k in self.kernels for stmt in k.body for n in ast.walk(stmt)}

    def resolve(self, node: ast.expr) -> str | None:
        """The dotted name `node` stands for (`T.cuda.Stream` -> `torch.cuda.Stream`), or None if not an import.

        `getattr(x, "name")` with a literal name counts as `x.name`, as do `operator.attrgetter("name")(x)` (a dotted
        path too: `attrgetter("a.b")(x)` is `x.a.b`) and `operator.methodcaller("name", ...)(x)`; a literal may be
        folded from pieces (`"_" + "C"`, an f-string of constants).
        """
        parts: list[str] = []
        while True:
            if isinstance(node, ast.Attribute):
                parts.append(node.attr)
                node = node.value
            elif (literal := self.literal_getattr(node)) is not None:
                parts.append(literal[1])
                node = literal[0]
            else:
                break
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        return ".".join([self.aliases[node.id], *reversed(parts)])

    def literal_getattr(self, node: ast.expr) -> tuple[ast.expr, str] | None:
        """(object, name) for `getattr(object, "name")` with a literal name, or an attribute getter built with one
        and applied at once (`operator.attrgetter("a.b")(object)`, `operator.methodcaller("m", ...)(object)`);
        else None."""
        if not isinstance(node, ast.Call):
            return None
        func = node.func
        if isinstance(func, ast.Name) and func.id == "getattr" and func.id not in self.aliases:
            name = literal_string(node.args[1]) if len(node.args) >= 2 else None
            return (node.args[0], name) if name is not None else None
        if isinstance(func, ast.Call) and func.args and len(node.args) == 1 and not node.keywords:
            getter = self.resolve(func.func)
            if getter in ATTRIBUTE_GETTERS and (getter == "operator.methodcaller" or len(func.args) == 1):
                name = literal_string(func.args[0])
                return (node.args[0], name) if name is not None else None
        return None

    def references(self) -> Iterator[tuple[ast.expr, str]]:
        """Every read of an imported name, attribute or literal getattr, with the dotted name it resolves to."""
        for node in ast.walk(self.tree):
            if not isinstance(node, ast.expr):
                continue
            readable = isinstance(node, (ast.Attribute, ast.Name)) and isinstance(node.ctx, ast.Load)
            if readable or self.literal_getattr(node) is not None:
                dotted = self.resolve(node)
                if dotted is not None:
                    yield node, dotted

    def in_kernel(self, node: ast.AST) -> bool:
        """Whether `node` sits inside the body of a `@triton.jit` kernel (where values are Triton values)."""
        return id(node) in self._kernel_nodes

    def _is_jit(self, decorator: ast.expr) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return self.resolve(target) == "triton.jit"

    def _add_assigned_aliases(self) -> None:
        """Follow `name = <resolvable expression>` bindings until nothing new resolves; imports win ties."""
        pairs = list(_assigned_pairs(self.tree))
        changed = True
        while changed:
            changed = False
            for name, value in pairs:
                if name in self.aliases:
                    continue
                dotted = self.resolve(value)
                if dotted is not None:
                    self.aliases[name] = dotted
                    changed = True


ATTRIBUTE_GETTERS = ("operator.attrgetter", "operator.methodcaller")
"""Callables that build a getter of an attribute named by a string."""


def literal_string(node: ast.expr) -> str | None:
    """The string a literal expression always evaluates to: a constant, `+` of such, or an f-string of constants."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = literal_string(node.left), literal_string(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        pieces = [literal_string(v) for v in node.values]
        return None if any(p is None for p in pieces) else "".join(p for p in pieces if p is not None)
    return None


def root(dotted: str) -> str:
    """The top-level module of a dotted name (`torch` for `torch.nn.functional.gelu`)."""
    return dotted.split(".", 1)[0]


def _import_aliases(tree: ast.Module) -> dict[str, str]:
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                if a.name != "*":
                    aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    return aliases


def _assigned_pairs(tree: ast.Module) -> Iterator[tuple[str, ast.expr]]:
    """(name, value) for every plain binding of a name: `a = v`, `a: T = v`, `(a := v)`, `a, b = v, w`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield from _pairs(target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            yield from _pairs(node.target, node.value)


def _pairs(target: ast.expr, value: ast.expr) -> Iterator[tuple[str, ast.expr]]:
    if isinstance(target, ast.Name):
        yield target.id, value
    elif (
        isinstance(target, (ast.Tuple, ast.List))
        and isinstance(value, (ast.Tuple, ast.List))
        and len(target.elts) == len(value.elts)
    ):
        for t, v in zip(target.elts, value.elts, strict=True):
            yield from _pairs(t, v)


def real_name(dotted: str, followed: Collection[str]) -> str:
    """Where a dotted name really leads when it passes through a module that another module binds by importing it:
    `torch.importlib.import_module` -> `importlib.import_module`, `torch.os.sys.modules` -> `sys.modules`,
    `os.path.join` -> `posixpath.join`, `enum.bltns.exec` -> `builtins.exec`; otherwise `dotted` itself.

    Only modules under the top-level names in `followed` are looked into, and only through their sources, read with
    `ast` where they are installed (never imported: the orchestrator imports no torch). What a module's imports bind
    outside functions and classes is what it exposes; a module without Python source exposes nothing that way. The
    walk ends at an attribute that is neither bound by an import nor a submodule, or outside `followed`.
    """
    parts = dotted.split(".")
    if parts[0] not in followed or _source(parts[0]) is None:
        return dotted
    current = parts[0]
    for i, part in enumerate(parts[1:], start=1):
        target = _attribute_module(current, part, followed)
        if target is None:
            return ".".join([current, *parts[i:]])
        if _source(target) is None or root(target) not in followed:
            return ".".join([target, *parts[i + 1 :]])  # another package's attribute or module: named from home
        current = target
    return current


def _attribute_module(module: str, name: str, followed: Collection[str]) -> str | None:
    """The dotted name `module.name` leads to when an import binds it to another package (an unfollowed one first,
    when the module binds it more than once) or when it is a submodule; None for the module's own attributes.
    Private packages (`_functools`, `_collections`: the C halves of the stdlib) count as the module's own."""
    targets = _module_bindings(module).get(name, ())
    foreign = [t for t in targets if root(t) != root(module) and not t.startswith("_")]
    if foreign:
        return next((t for t in foreign if root(t) not in followed), foreign[0])
    if _source(f"{module}.{name}") is not None:
        return f"{module}.{name}"
    return next((t for t in targets if _source(t) is not None), None)


_NO_SOURCE = ""
"""What `_source` gives for a module that exists without Python source: built in, compiled, a namespace package."""


@functools.cache
def _source(module: str) -> str | None:
    """The path of an installed module's source, `_NO_SOURCE` for a module without one, None for no module. The
    path finders locate a top-level name; below it the package's folders are searched; nothing is imported."""
    top, *below = module.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if not below:
        origin = getattr(spec.loader_state, "filename", None) or spec.origin  # frozen stdlib (os) names its file
        return origin if origin and origin.endswith(".py") else _NO_SOURCE
    folders = [Path(p) for p in spec.submodule_search_locations or ()]
    for part in below[:-1]:
        folders = [f / part for f in folders if (f / part).is_dir()]
    last = below[-1]
    for folder in folders:
        for path in (folder / last / "__init__.py", folder / f"{last}.py"):
            if path.is_file():
                return str(path)
        if (folder / last).is_dir() or any(folder.glob(f"{last}.*.so")):
            return _NO_SOURCE
    return None


@functools.cache
def _module_bindings(module: str) -> dict[str, tuple[str, ...]]:
    """Name -> the dotted names a module's imports bind it to outside functions and classes, in source order
    (`import builtins as bltns` binds `bltns` to `builtins`; `from posixpath import join` binds `join` to
    `posixpath.join`). Empty for a module without source."""
    path = _source(module)
    if not path:
        return {}
    try:
        tree = syntax.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return {}
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    bindings: dict[str, list[str]] = {}
    for node in _module_level(tree.body):
        if isinstance(node, ast.Import):
            for a in node.names:
                bindings.setdefault(a.asname or root(a.name), []).append(a.name if a.asname else root(a.name))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0]
                base = f"{anchor}.{base}" if base else anchor
            for a in node.names:
                if a.name != "*":
                    bindings.setdefault(a.asname or a.name, []).append(f"{base}.{a.name}")
    return {name: tuple(targets) for name, targets in bindings.items()}


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements that run when a module is imported: its body and, inside it, the bodies of `if`, `try` and
    `with`, but not functions or classes."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Try, ast.TryStar, ast.With)):
            for field in ("body", "orelse", "finalbody"):
                yield from _module_level(getattr(stmt, field, []))
            for handler in getattr(stmt, "handlers", []):
                yield from _module_level(handler.body)
