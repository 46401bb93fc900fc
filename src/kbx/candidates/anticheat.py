"""Static anti-cheat rules: constructs an honest Triton candidate never needs (issue 4, static layer).

Each rule has a name and a reason; the first rule a candidate breaks rejects it as REJECTED_STATIC before anything
runs. The capability rules (an allow-list of importable modules, introspection of code, frames and classes, tensor
subclasses, processes, threads, side streams, dynamic code, patching modules, torch entry points that generate or run
kernels) hold for every task. The task-specific rule forbids the PyTorch operations that would do the task's core
work (the task's `forbidden` list). No honest kernel may trip any of them: the suite's own solutions are the
false-positive test. The tables the rules consult (allowed modules, forbidden names, each with its reason) live
in `kbx.candidates.capabilities`; the two fallback rules (`try_fallback`, `torch_fallback`) in
`kbx.candidates.fallbacks`. A static rule can be evaded by code clever enough; runtime defences (audit hook,
identity snapshots, launch counting) live in the candidate worker.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TypeGuard

from kbx.candidates.capabilities import (
    ALIAS_ROOTS,
    ALLOWED_MODULES,
    BINDABLE_DUNDERS,
    DYNAMIC_BUILTINS,
    FORBIDDEN_MODULES,
    INTROSPECTION,
    NOT_ALLOWED,
    PICKLING_HOOK,
    PICKLING_HOOKS,
    RELATIVE_IMPORT,
    REWRITES_DUNDERS,
    TENSOR_CLASSES,
    TENSOR_HOOKS,
    TENSOR_SUBCLASS,
    forbidden_reason,
    reached_name,
)
from kbx.candidates.fallbacks import torch_fallback, try_fallback
from kbx.candidates.names import ATTRIBUTE_GETTERS, Names, literal_string, root
from kbx.candidates.violation import FUNCTION_NODES, Source, Violation
from kbx.tasks.spec import normalise_op


def find_violation(
    tree: ast.Module, forbidden: Iterable[str] = (), extensions: Iterable[str] = ()
) -> Violation | None:
    """The first rule the candidate's source breaks, or None.

    Args:
        tree: the parsed candidate.
        forbidden: the task's forbidden operation names (`Task.forbidden`); empty applies the blanket rules only.
        extensions: module-level names bound to the candidate's own compiled extensions (`kbx.candidates.cuda`).
    """
    return next(violations(tree, forbidden, extensions), None)


def violations(tree: ast.Module, forbidden: Iterable[str] = (), extensions: Iterable[str] = ()
               ) -> Iterator[Violation]:
    """Every broken rule, rule by rule in the order of `find_violation`."""
    source = Source(tree, Names(tree), frozenset(normalise_op(f) for f in forbidden), frozenset(extensions))
    for rule in _RULES:
        yield from rule(source)


def _forbidden_imports(src: Source) -> Iterator[Violation]:
    for node in ast.walk(src.tree):
        for name in _imported_names(node):
            if root(name) in FORBIDDEN_MODULES:
                yield Violation("forbidden_import", node.lineno, f"imports {name}: {FORBIDDEN_MODULES[root(name)]}")
            found = _forbidden_name(name)
            if found:
                yield Violation("forbidden_call", node.lineno, f"imports {found[0]}: {found[1]}")
    for line, dotted, reached in _reached_elsewhere(src):
        if root(reached) in FORBIDDEN_MODULES:
            yield Violation(
                "forbidden_import", line, f"reaches {reached} through {dotted}: {FORBIDDEN_MODULES[root(reached)]}"
            )


def _forbidden_attributes(src: Source) -> Iterator[Violation]:
    for node, dotted in src.names.references():
        found = _forbidden_name(dotted)
        if found:
            yield Violation("forbidden_call", node.lineno, f"uses {found[0]}: {found[1]}")


def _forbidden_name(dotted: str) -> tuple[str, str] | None:
    """(how a verdict names it, why) when a dotted name may not be used: judged where it really leads first
    (`torch.os.sys._getframe` is `sys._getframe`), then as written; None when it may be used."""
    reached = reached_name(dotted)
    reason = forbidden_reason(reached) if root(reached) != root(dotted) else None
    if reason:
        return f"{reached} through {dotted}", reason
    reason = forbidden_reason(dotted)
    return (dotted, reason) if reason else None


def _imported_names(node: ast.AST) -> list[str]:
    """The modules and module attributes an import statement names (`from a.b import c` -> `a.b`, `a.b.c`)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.module:
        return [node.module] + [f"{node.module}.{a.name}" for a in node.names if a.name != "*"]
    return []


def _reached_elsewhere(src: Source) -> Iterator[tuple[int, str, str]]:
    """(line, dotted, reached) for each imported or used name that passes through a module of another top-level
    module (`torch.importlib.import_module` reaches `importlib.import_module`)."""
    named = [(n.lineno, name) for n in ast.walk(src.tree) for name in _imported_names(n)]
    named += [(n.lineno, dotted) for n, dotted in src.names.references()]
    for line, dotted in named:
        reached = reached_name(dotted)
        if root(reached) != root(dotted):
            yield line, dotted, reached


def _dynamic_code(src: Source) -> Iterator[Violation]:
    aliases = src.names.aliases
    called = {id(n.func) for n in ast.walk(src.tree) if isinstance(n, ast.Call)}
    for node in ast.walk(src.tree):
        if (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, ast.Load)
            and node.id in DYNAMIC_BUILTINS
            and node.id not in aliases
        ):
            use = f"calls {node.id}()" if id(node) in called else f"uses {node.id}"
            yield Violation("dynamic_code", node.lineno, f"{use}: {DYNAMIC_BUILTINS[node.id]}")
        if isinstance(node, ast.Name) and node.id in {"__builtins__", "builtins"}:
            yield Violation("dynamic_code", node.lineno, "reaches into builtins: hides what runs")
        if isinstance(node, ast.Call) and _is_computed_getattr(node, src.names):
            yield Violation("dynamic_code", node.lineno, "getattr with a computed name on a module hides what runs")
        if isinstance(node, ast.Attribute) and node.attr == "__dict__" and src.names.resolve(node.value):
            yield Violation("dynamic_code", node.lineno, "reading a module's __dict__ hides what runs")


def _patches_modules(src: Source) -> Iterator[Violation]:
    for node in ast.walk(src.tree):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            if isinstance(target, ast.Attribute):
                dotted = src.names.resolve(target.value)
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
            and src.names.resolve(node.args[0]) is not None
        ):
            yield Violation("patches_module", node.lineno, f"{node.func.id} on an imported module")


def _introspection(src: Source) -> Iterator[Violation]:
    called = {id(n.func) for n in ast.walk(src.tree) if isinstance(n, ast.Call)}
    methods = {id(s) for c in ast.walk(src.tree) if isinstance(c, ast.ClassDef) for s in c.body}
    for node in ast.walk(src.tree):
        reason = None
        if isinstance(node, ast.Attribute) and node.attr in INTROSPECTION:
            reason = f"uses .{node.attr}: {INTROSPECTION[node.attr]}"
        elif isinstance(node, ast.Attribute) and _is_dunder(node.attr) and not isinstance(node.ctx, ast.Load):
            reason = f"assigns .{node.attr}: {REWRITES_DUNDERS}"
        elif isinstance(node, ast.Name) and node.id in INTROSPECTION and _is_dunder(node.id):
            reason = f"uses {node.id}: {INTROSPECTION[node.id]}"
        elif _is_attribute_builtin(node, src.names) and id(node) not in called:
            reason = f"passes {node.id} around: called under another name, it reaches attributes these rules miss"
        elif _is_getter(node, src.names) and id(node) not in called:
            reason = f"passes {src.names.resolve(node)} around: {GETTER_NOT_APPLIED}"
        elif isinstance(node, ast.Call) and _is_getter(node.func, src.names) and id(node) not in called:
            reason = f"keeps an attribute getter ({src.names.resolve(node.func)}) to use later: {GETTER_NOT_APPLIED}"
        elif _dunder_bound(node, methods):
            reason = f"binds {_dunder_bound(node, methods)}: {REWRITES_DUNDERS}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = _introspected(node.value)
            reason = f"names {named} in a string: {INTROSPECTION[named]}" if named else None
        elif isinstance(node, ast.Call):
            reason = _attribute_call(node, src.names)
        if reason:
            yield Violation("introspection", getattr(node, "lineno", 0), reason)
        if isinstance(node, ast.ClassDef):
            for name, line in _class_members(node):
                if name in PICKLING_HOOKS:
                    yield Violation("introspection", line, f"class {node.name} defines {name}: {PICKLING_HOOK}")


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _dunder_bound(node: ast.AST, methods: set[int]) -> str | None:
    """The dunder `node` binds when the candidate may not bind it: `__name__ = ...`, `for __name__ in ...`,
    `import x as __loader__`, `from m import __name__`, `except E as __name__:`, `case __name__:`, and a function
    or class so named outside a class body (a decorator makes it any object: `@f` over `def __name__(): ...`).
    Binding `__name__` would make a `__name__ == "__main__"` block, which the static stage does not judge, run."""
    name: str | None = None
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        name = node.id
    elif isinstance(node, ast.alias):
        name = node.asname or node.name.split(".")[0]
    elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        name = node.name
    elif isinstance(node, ast.MatchMapping):
        name = node.rest
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and id(node) not in methods:
        name = node.name
    return name if name and _is_dunder(name) and name not in BINDABLE_DUNDERS else None


_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _introspected(text: str) -> str | None:
    """The INTROSPECTION attribute a string names: `"__globals__"`, or `"__code__.co_consts"` for attrgetter."""
    if not _DOTTED.fullmatch(text):
        return None
    return next((part for part in text.split(".") if part in INTROSPECTION), None)


GETTER_NOT_APPLIED = (
    "a getter of attributes by name is judged where it is applied to its object at once; stored, mapped or "
    "wrapped (`map`, `functools.partial`), what it reaches is unknown"
)


def _is_getter(node: ast.AST, names: Names) -> bool:
    """A read of `operator.attrgetter` or `operator.methodcaller`, under any alias."""
    return isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and (
        names.resolve(node) in ATTRIBUTE_GETTERS
    )


def _is_attribute_builtin(node: ast.AST, names: Names) -> TypeGuard[ast.Name]:
    """A read of the builtin `getattr`, `setattr` or `delattr` (not shadowed by an import)."""
    return (
        isinstance(node, ast.Name)
        and isinstance(node.ctx, ast.Load)
        and node.id in ("getattr", "setattr", "delattr")
        and node.id not in names.aliases
    )


def _attribute_call(node: ast.Call, names: Names) -> str | None:
    """Why a call that reaches an attribute by name is rejected, or None: a computed name (it could be any of
    INTROSPECTION), or `setattr`/`delattr` of a dunder. A computed name on a module is `dynamic_code`'s."""
    func = node.func
    if _is_attribute_builtin(func, names):
        if len(node.args) < 2:
            return None
        attribute = node.args[1]
        literal = literal_string(attribute)
        if literal is None:
            if names.resolve(node.args[0]) is None:
                return f"{func.id} with a computed name can reach __globals__, __code__ and frames past these rules"
        elif func.id != "getattr" and _is_dunder(literal):
            return f"{func.id} of {literal}: {REWRITES_DUNDERS}"
        elif (named := _introspected(literal)) is not None:
            return f"{func.id} of {literal}: {INTROSPECTION[named]}"
        return None
    getter = names.resolve(func)
    if getter in ATTRIBUTE_GETTERS:
        picked = node.args[:1] if getter == "operator.methodcaller" else node.args
        texts = [literal_string(a) for a in picked]
        if not texts or any(t is None for t in texts):
            return f"{getter} with a computed name can reach __globals__, __code__ and frames past these rules"
        named = next((n for t in texts if t is not None and (n := _introspected(t))), None)
        if named is not None:
            return f"{getter} of {named}: {INTROSPECTION[named]}"
    return None


def _class_members(node: ast.ClassDef) -> Iterator[tuple[str, int]]:
    """(name, line) of each method defined or name assigned directly in a class body."""
    for stmt in node.body:
        if isinstance(stmt, (*FUNCTION_NODES, ast.ClassDef)):
            yield stmt.name, stmt.lineno
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        yield name.id, stmt.lineno


def _tensor_subclass(src: Source) -> Iterator[Violation]:
    for node in ast.walk(src.tree):
        if isinstance(node, ast.ClassDef):
            for base in map(src.names.resolve, node.bases):
                if base in TENSOR_CLASSES:
                    reason = f"class {node.name} subclasses {base}: {TENSOR_SUBCLASS}"
                    yield Violation("tensor_subclass", node.lineno, reason)
            for name, line in _class_members(node):
                if name in TENSOR_HOOKS:
                    yield Violation("tensor_subclass", line, f"class {node.name} defines {name}: {TENSOR_SUBCLASS}")
        elif isinstance(node, FUNCTION_NODES) and node.name in TENSOR_HOOKS:
            yield Violation("tensor_subclass", node.lineno, f"defines {node.name}: {TENSOR_SUBCLASS}")
        elif isinstance(node, ast.Attribute) and node.attr == "as_subclass":
            yield Violation("tensor_subclass", node.lineno, f"uses .as_subclass: {TENSOR_SUBCLASS}")


def _imports_not_allowed(src: Source) -> Iterator[Violation]:
    for node in ast.walk(src.tree):
        modules: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level:
            yield Violation("import_not_allowed", node.lineno, RELATIVE_IMPORT)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        for module in modules:
            if root(module) not in ALLOWED_MODULES and root(module) not in FORBIDDEN_MODULES:
                yield Violation("import_not_allowed", node.lineno, f"imports {module}: {NOT_ALLOWED}")
    for line, dotted, reached in _reached_elsewhere(src):
        if root(reached) not in (*ALLOWED_MODULES, *FORBIDDEN_MODULES, *ALIAS_ROOTS):
            yield Violation("import_not_allowed", line, f"reaches {reached} through {dotted}: {NOT_ALLOWED}")


def _is_computed_getattr(node: ast.Call, names: Names) -> bool:
    """`getattr(<imported module>, <not a string literal>)`: a module attribute chosen at run time."""
    if not (isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2):
        return False
    if names.resolve(node.args[0]) is None:
        return False
    return not (isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str))


def _uses_reference(src: Source) -> Iterator[Violation]:
    harness = "the harness is not part of a kernel, and through it lies the task's reference"
    for node in ast.walk(src.tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if root(a.name) == "kbx":
                    yield Violation("uses_reference", node.lineno, f"imports {a.name}: {harness}")
        elif isinstance(node, ast.ImportFrom):
            if node.module and node.level == 0 and root(node.module) == "kbx":
                yield Violation("uses_reference", node.lineno, f"imports from {node.module}: {harness}")
            if any(a.name == "reference" for a in node.names):
                yield Violation("uses_reference", node.lineno, "imports a `reference`: " + _REFERENCE)
        elif isinstance(node, ast.Call) and _names_reference(node.func):
            yield Violation("uses_reference", node.lineno, "calls `reference`: " + _REFERENCE)
        elif isinstance(node, ast.ClassDef) and any(_names_reference(b) for b in node.bases):
            yield Violation("uses_reference", node.lineno, f"class {node.name} subclasses `reference`: " + _REFERENCE)
        elif (isinstance(node, ast.Attribute) and node.attr == "reference" and isinstance(node.ctx, ast.Load)) or (
            isinstance(node, ast.Call) and _literal_attribute(node) == "reference"
        ):
            yield Violation("uses_reference", node.lineno, "reads an attribute `reference`: " + _REFERENCE)


_REFERENCE = "the task's reference is what the candidate is compared with, not something it may run"


def _names_reference(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "reference"
    if isinstance(node, ast.Attribute):
        return node.attr == "reference"
    return isinstance(node, ast.Call) and _literal_attribute(node) == "reference"


def _literal_attribute(node: ast.Call) -> str | None:
    """The name in `getattr(x, "name")` / `hasattr(x, "name")` with a string literal, else None."""
    if (
        isinstance(node.func, ast.Name)
        and node.func.id in {"getattr", "hasattr"}
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ):
        return node.args[1].value
    return None


_RULES: tuple[Callable[[Source], Iterator[Violation]], ...] = (
    _forbidden_imports,
    _forbidden_attributes,
    _dynamic_code,
    _patches_modules,
    _introspection,
    _tensor_subclass,
    _uses_reference,
    try_fallback,
    torch_fallback,
    _imports_not_allowed,
)
"""The rules in the order `find_violation` applies them. The allow-list comes last, so that a rule naming a known
trick speaks first (`copyreg` is `forbidden_import`, `np.sum` is `torch_fallback`)."""
