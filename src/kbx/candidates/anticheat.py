"""Static anti-cheat rules: constructs an honest Triton candidate never needs (issue 4, static layer).

Each rule has a name and a reason; the first rule a candidate breaks rejects it as REJECTED_STATIC before anything
runs. The capability rules (an allow-list of importable modules, introspection of code, frames and classes, tensor
subclasses, processes, threads, side streams, dynamic code, patching modules, torch entry points that generate or run
kernels) hold for every task. The task-specific rule forbids the PyTorch operations that would do the task's core
work (the task's `forbidden` list). No honest kernel may trip any of them: the suite's own solutions are the
false-positive test. The tables the rules consult (allowed modules, forbidden names, each with its reason) live
in `kbx.candidates.capabilities`. A static rule can be evaded by code clever enough; runtime defences (audit hook,
identity snapshots, launch counting) live in the candidate worker.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeGuard

from kbx.candidates.capabilities import (
    ALIAS_ROOTS,
    ALLOWED_MODULES,
    BINDABLE_DUNDERS,
    CORE_WORK,
    DYNAMIC_BUILTINS,
    FORBIDDEN_MODULES,
    INTROSPECTION,
    KERNEL_NAMESPACES,
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
from kbx.candidates.names import Names, root
from kbx.tasks.spec import MATMUL_OPERATOR, normalise_op


@dataclass(frozen=True)
class Violation:
    """A broken rule, with where and why."""

    rule: str
    line: int
    reason: str

    def message(self) -> str:
        return f"{self.rule} (line {self.line}): {self.reason}"


@dataclass(frozen=True)
class _Source:
    tree: ast.Module
    names: Names
    forbidden: frozenset[str]
    """Normalised forbidden operation names of the task."""


def find_violation(tree: ast.Module, forbidden: Iterable[str] = ()) -> Violation | None:
    """The first rule the candidate's source breaks, or None.

    Args:
        tree: the parsed candidate.
        forbidden: the task's forbidden operation names (`Task.forbidden`); empty applies the blanket rules only.
    """
    return next(violations(tree, forbidden), None)


def violations(tree: ast.Module, forbidden: Iterable[str] = ()) -> Iterator[Violation]:
    """Every broken rule, rule by rule in the order of `find_violation`."""
    source = _Source(tree, Names(tree), frozenset(normalise_op(f) for f in forbidden))
    for rule in _RULES:
        yield from rule(source)


def _forbidden_imports(src: _Source) -> Iterator[Violation]:
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


def _forbidden_attributes(src: _Source) -> Iterator[Violation]:
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


def _reached_elsewhere(src: _Source) -> Iterator[tuple[int, str, str]]:
    """(line, dotted, reached) for each imported or used name that passes through a module of another top-level
    module (`torch.importlib.import_module` reaches `importlib.import_module`)."""
    named = [(n.lineno, name) for n in ast.walk(src.tree) for name in _imported_names(n)]
    named += [(n.lineno, dotted) for n, dotted in src.names.references()]
    for line, dotted in named:
        reached = reached_name(dotted)
        if root(reached) != root(dotted):
            yield line, dotted, reached


def _dynamic_code(src: _Source) -> Iterator[Violation]:
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


def _patches_modules(src: _Source) -> Iterator[Violation]:
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


def _introspection(src: _Source) -> Iterator[Violation]:
    called = {id(n.func) for n in ast.walk(src.tree) if isinstance(n, ast.Call)}
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
        elif isinstance(node, (ast.Name, ast.alias)) and _binds_dunder(node):
            reason = f"binds {_bound_name(node)}: {REWRITES_DUNDERS}"
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


def _bound_name(node: ast.Name | ast.alias) -> str:
    return node.id if isinstance(node, ast.Name) else node.asname or node.name


def _binds_dunder(node: ast.Name | ast.alias) -> bool:
    """`__name__ = ...`, `for __name__ in ...`, `import x as __loader__`: a dunder bound by the candidate."""
    if (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)) or (
        isinstance(node, ast.alias) and node.asname is None
    ):
        return False
    name = _bound_name(node)
    return _is_dunder(name) and name not in BINDABLE_DUNDERS


_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _introspected(text: str) -> str | None:
    """The INTROSPECTION attribute a string names: `"__globals__"`, or `"__code__.co_consts"` for attrgetter."""
    if not _DOTTED.fullmatch(text):
        return None
    return next((part for part in text.split(".") if part in INTROSPECTION), None)


_ATTRIBUTE_GETTERS = ("operator.attrgetter", "operator.methodcaller")


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
        if not (isinstance(attribute, ast.Constant) and isinstance(attribute.value, str)):
            if names.resolve(node.args[0]) is None:
                return f"{func.id} with a computed name can reach __globals__, __code__ and frames past these rules"
        elif func.id != "getattr" and _is_dunder(attribute.value):
            return f"{func.id} of {attribute.value}: {REWRITES_DUNDERS}"
        return None
    getter = names.resolve(func)
    if getter in _ATTRIBUTE_GETTERS:
        picked = node.args[:1] if getter == "operator.methodcaller" else node.args
        if not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in picked):
            return f"{getter} with a computed name can reach __globals__, __code__ and frames past these rules"
    return None


def _class_members(node: ast.ClassDef) -> Iterator[tuple[str, int]]:
    """(name, line) of each method defined or name assigned directly in a class body."""
    for stmt in node.body:
        if isinstance(stmt, (*_FUNCTIONS, ast.ClassDef)):
            yield stmt.name, stmt.lineno
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        yield name.id, stmt.lineno


def _tensor_subclass(src: _Source) -> Iterator[Violation]:
    for node in ast.walk(src.tree):
        if isinstance(node, ast.ClassDef):
            for base in map(src.names.resolve, node.bases):
                if base in TENSOR_CLASSES:
                    reason = f"class {node.name} subclasses {base}: {TENSOR_SUBCLASS}"
                    yield Violation("tensor_subclass", node.lineno, reason)
            for name, line in _class_members(node):
                if name in TENSOR_HOOKS:
                    yield Violation("tensor_subclass", line, f"class {node.name} defines {name}: {TENSOR_SUBCLASS}")
        elif isinstance(node, _FUNCTIONS) and node.name in TENSOR_HOOKS:
            yield Violation("tensor_subclass", node.lineno, f"defines {node.name}: {TENSOR_SUBCLASS}")
        elif isinstance(node, ast.Attribute) and node.attr == "as_subclass":
            yield Violation("tensor_subclass", node.lineno, f"uses .as_subclass: {TENSOR_SUBCLASS}")


def _imports_not_allowed(src: _Source) -> Iterator[Violation]:
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


def _uses_reference(src: _Source) -> Iterator[Violation]:
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


def _try_fallback(src: _Source) -> Iterator[Violation]:
    hides = "a fallback path hides a failing kernel by computing the result some other way"
    inside = {id(n) for f in ast.walk(src.tree) if isinstance(f, _FUNCTIONS) for s in f.body for n in ast.walk(s)}
    for node in ast.walk(src.tree):
        if isinstance(node, (ast.Try, ast.TryStar)) and id(node) in inside and not _import_guard(node):
            for handler in node.handlers:
                if not _reraises(handler.body):
                    caught = ast.unparse(handler.type) if handler.type else "everything"
                    yield Violation("try_fallback", handler.lineno, f"catches {caught} without re-raising: {hides}")
            if _leaves(node.finalbody):
                yield Violation("try_fallback", node.lineno, f"leaves a `finally` early, swallowing errors: {hides}")
        elif isinstance(node, (ast.With, ast.AsyncWith)) and id(node) in inside:
            for item in node.items:
                target = item.context_expr.func if isinstance(item.context_expr, ast.Call) else item.context_expr
                if src.names.resolve(target) == "contextlib.suppress":
                    yield Violation("try_fallback", node.lineno, f"suppresses exceptions: {hides}")
        elif isinstance(node, _FUNCTIONS) and node.name in {"__exit__", "__aexit__"} and _returns_truthy(node):
            yield Violation("try_fallback", node.lineno, f"a context manager that swallows exceptions: {hides}")


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _import_guard(node: ast.Try | ast.TryStar) -> bool:
    """`try: import x` / `except ImportError: ...` inside a function: choosing a module, not a computation."""
    return all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in node.body)


def _reraises(body: list[ast.stmt]) -> bool:
    """Whether a handler ends by raising and cannot leave any other way."""
    return bool(body) and isinstance(body[-1], ast.Raise) and not _leaves(body)


def _leaves(body: list[ast.stmt], in_loop: bool = False) -> bool:
    """Whether the statements hold a return, or a break/continue that leaves them (not one of an inner loop)."""
    for stmt in body:
        if isinstance(stmt, ast.Return) or (isinstance(stmt, (ast.Break, ast.Continue)) and not in_loop):
            return True
        if isinstance(stmt, (*_FUNCTIONS, ast.ClassDef)):
            continue
        is_loop = isinstance(stmt, (ast.For, ast.AsyncFor, ast.While))
        blocks = [(getattr(stmt, "body", []), in_loop or is_loop)]
        blocks += [(getattr(stmt, field, []), in_loop) for field in ("orelse", "finalbody")]
        blocks += [(part.body, in_loop) for part in [*getattr(stmt, "handlers", []), *getattr(stmt, "cases", [])]]
        if any(_leaves(block, loop) for block, loop in blocks):
            return True
    return False


def _returns_truthy(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        isinstance(node, ast.Return)
        and node.value is not None
        and not (isinstance(node.value, ast.Constant) and not node.value.value)
        for node in ast.walk(func)
    )


def _torch_fallback(src: _Source) -> Iterator[Violation]:
    for node in ast.walk(src.tree):
        star = isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names)
        if star and node.module and root(node.module) not in KERNEL_NAMESPACES:
            yield Violation(
                "torch_fallback", node.lineno, f"star import from {node.module} hides which operations are called"
            )
    if not src.forbidden:
        return
    names = src.names
    called = {id(n.func) for n in ast.walk(src.tree) if isinstance(n, ast.Call)}
    # `torch.backends.cuda.matmul.allow_tf32` reads a flag: `matmul` there is a namespace, not the operation.
    namespaces = {
        id(n.value) for n in ast.walk(src.tree) if isinstance(n, ast.Attribute) and not n.attr.startswith("__")
    }
    for node in ast.walk(src.tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                if _is_fallback(f"{node.module}.{a.name}", src.forbidden):
                    yield Violation("torch_fallback", node.lineno, f"imports {node.module}.{a.name}: {CORE_WORK}")
    for node, dotted in names.references():
        if id(node) not in namespaces and _is_fallback(dotted, src.forbidden):
            verb = "calls" if id(node) in called else "uses"
            yield Violation("torch_fallback", node.lineno, f"{verb} {dotted}: {CORE_WORK}")
    for node in ast.walk(src.tree):
        if names.in_kernel(node):
            continue  # Triton values: `acc.sum(0)`, `x.to(...)` are kernel code
        method = _method_name(node, names)
        if method is not None and normalise_op(method) in src.forbidden:
            yield Violation("torch_fallback", node.lineno, f"calls the method .{method}(): {CORE_WORK}")
        if MATMUL_OPERATOR in src.forbidden and _is_matmul_operator(node):
            yield Violation("torch_fallback", node.lineno, f"uses the @ operator (a torch matmul): {CORE_WORK}")


def _is_fallback(dotted: str, forbidden: frozenset[str]) -> bool:
    return root(dotted) not in KERNEL_NAMESPACES and normalise_op(dotted.rsplit(".", 1)[-1]) in forbidden


def _method_name(node: ast.AST, names: Names) -> str | None:
    """The method called by `value.method(...)` or `getattr(value, "method")(...)` where `value` is not an
    imported name (a tensor, a module reached some other way); None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and names.resolve(func.value) is None:
        return func.attr
    literal = names.literal_getattr(func)
    if literal is not None and names.resolve(literal[0]) is None:
        return literal[1]
    return None


def _is_matmul_operator(node: ast.AST) -> bool:
    return isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.MatMult)


_RULES: tuple[Callable[[_Source], Iterator[Violation]], ...] = (
    _forbidden_imports,
    _forbidden_attributes,
    _dynamic_code,
    _patches_modules,
    _introspection,
    _tensor_subclass,
    _uses_reference,
    _try_fallback,
    _torch_fallback,
    _imports_not_allowed,
)
"""The rules in the order `find_violation` applies them. The allow-list comes last, so that a rule naming a known
trick speaks first (`copyreg` is `forbidden_import`, `np.sum` is `torch_fallback`)."""
