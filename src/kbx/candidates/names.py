"""What the names in a candidate's source stand for, decided from the source alone.

`Names` maps each local name bound by an import (`import torch.nn.functional as F`) or by a plain assignment of
such a name (`F = torch.nn.functional`, `op = getattr(torch, "relu")`) to the dotted module attribute it stands
for, and knows which functions are `@triton.jit` kernels. The static stage and the anti-cheat rules share it, so
"is this torch?" and "is this a kernel?" are answered one way.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator


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

        `getattr(x, "name")` with a literal name counts as `x.name`.
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
        """(object, name) for `getattr(object, "name")` with a string literal name, else None."""
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "getattr"
            and node.func.id not in self.aliases
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            return node.args[0], node.args[1].value
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
