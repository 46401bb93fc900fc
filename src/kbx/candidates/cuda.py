"""The CUDA backend's static stage: what a candidate that builds kernels with `load_inline` may write.

A CUDA candidate is one Python module that builds its extensions at module level, KernelBench's way:

    from torch.utils.cpp_extension import load_inline
    CUDA_SRC = '''... __global__ void relu_kernel(...) ... torch::Tensor relu_cuda(torch::Tensor x) ...'''
    CPP_SRC = "torch::Tensor relu_cuda(torch::Tensor x);"
    relu_ext = load_inline(name="relu_ext", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC, functions=["relu_cuda"])

    def relu(input):
        return relu_ext.relu_cuda(input)

`torch.utils.cpp_extension` may be used in exactly this form: imported at top level, and `load_inline` called as
the whole value of a top-level assignment to one name bound nowhere else, with every argument a literal or a
module-level name bound once, earlier, to one (a list so bound may be read nowhere else: it could be changed in
place). So the static stage reads the very arguments the call will see (`ExtensionBuild`), and judges them: the
flags (`native_flags`), the sources (`native_rules`), the task's forbidden operations in C++. `load` is refused: a
candidate is one Python file, so it has no source files of its own to build. Every other name of
`torch.utils.cpp_extension` stays forbidden, as for Triton candidates.

The Python rules (`kbx.candidates.anticheat`) then judge the rest of the module, with the builds taken out
(`NativeCode.tree`) and the names bound to built extensions known (`NativeCode.modules`: `relu_ext.relu_cuda(x)`
calls the candidate's own code, not a torch method).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kbx.candidates.names import Names, literal_string
from kbx.candidates.native_flags import flag_problems
from kbx.candidates.native_rules import has_kernel, source_problems
from kbx.candidates.violation import Violation
from kbx.evaluation.extensions import LOAD_INLINE, POSITIONAL, ExtensionBuild, from_arguments

MODULE = "torch.utils.cpp_extension"
FORM = "only `NAME = load_inline(...)` at module level may use torch.utils.cpp_extension"
_LOAD = "load() builds from files, and a candidate is one Python file: pass the sources to load_inline"


@dataclass(frozen=True)
class NativeCode:
    """What the static stage read of a candidate's extensions."""

    builds: tuple[ExtensionBuild, ...]
    """The extensions it builds, in source order; empty for a candidate of another backend."""
    modules: frozenset[str]
    """Module-level names bound to a built extension."""
    tree: ast.Module
    """The candidate as the Python rules judge it: builds and their imports taken out."""
    violation: Violation | None = None

    @property
    def backend(self) -> str:
        return "cuda" if self.builds else "triton"


@dataclass(frozen=True)
class _Build:
    index: int
    """Position of its statement in the module's body."""
    target: str
    call: ast.Call


def read_native(tree: ast.Module, forbidden: Iterable[str] = ()) -> NativeCode:
    """The extensions `tree` builds, judged; a candidate that never names `torch.utils.cpp_extension` comes back
    as it is, with no builds. `forbidden`: the task's forbidden operations, normalised."""
    names = Names(tree)
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and _imports_module(n)]
    references = [(n, d) for n, d in names.references() if d == MODULE or d.startswith(MODULE + ".")]
    if not imports and not references:
        return NativeCode((), frozenset(), tree)
    found = _build_statements(tree, names)
    if not found:  # no build: judged as any other candidate, to which the module is forbidden (`load` says why)
        loads = [n for n, d in references if d == f"{MODULE}.load"]
        inline = [n for n, d in references if d == f"{MODULE}.load_inline"]
        violation = (Violation("native_form", loads[0].lineno, f"uses {MODULE}.load: {_LOAD}") if loads else
                     Violation("native_form", inline[0].lineno, f"{FORM}: a build inside a function (a lazy "
                               "build) is not read by the static stage") if inline else None)
        return NativeCode((), frozenset(), tree, violation)
    violation = next(_form_problems(tree, imports, references, found), None)
    builds: list[ExtensionBuild] = []
    if violation is None:
        try:
            builds = [_read(tree, b, found) for b in found]
        except _Refused as refused:
            violation = refused.violation
    if violation is None:
        violation = next(_build_problems(found, builds, frozenset(forbidden)), None)
    modules = frozenset(b.target for b in found)
    return NativeCode(tuple(builds), modules, _masked(tree, found, imports), violation)


def kernel_problem(tree: ast.Module) -> str | None:
    """Why a CUDA candidate has no kernel of its own to run (no `__global__` function in any `cuda_sources`, or
    no built extension ever used), or None."""
    native = read_native(tree)
    if not any(has_kernel(s) for b in native.builds for s in b.cuda_sources):
        return "no extension defines a `__global__` kernel in its cuda_sources"
    used = {n.id for n in ast.walk(native.tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    if not native.modules & used:
        return f"the extension(s) {', '.join(sorted(native.modules))} are never used"
    return None


class _Refused(Exception):
    def __init__(self, line: int, reason: str, rule: str = "native_form") -> None:
        super().__init__(reason)
        self.violation = Violation(rule, line, reason)


def _imports_module(node: ast.Import | ast.ImportFrom) -> bool:
    named = [a.name for a in node.names] if isinstance(node, ast.Import) else [
        f"{node.module}.{a.name}" for a in node.names
    ]
    if isinstance(node, ast.ImportFrom):
        named.append(node.module or "")
    return any(n == MODULE or n.startswith(MODULE + ".") for n in named)


def _build_statements(tree: ast.Module, names: Names) -> list[_Build]:
    found = []
    for index, stmt in enumerate(tree.body):
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and isinstance(stmt.value, ast.Call)
            and names.resolve(stmt.value.func) == LOAD_INLINE
        ):
            found.append(_Build(index, stmt.targets[0].id, stmt.value))
    return found


def _form_problems(
    tree: ast.Module, imports: list[ast.Import | ast.ImportFrom], references: list[tuple[ast.expr, str]],
    found: list[_Build],
) -> Iterator[Violation]:
    top = {id(s) for s in tree.body}
    for node in imports:
        if id(node) not in top:
            yield Violation("native_form", node.lineno, f"imports {MODULE} inside a block: {FORM}")
        elif isinstance(node, ast.ImportFrom) and node.module == MODULE:
            for alias in node.names:
                if alias.name != "load_inline":
                    reason = _LOAD if alias.name == "load" else FORM
                    yield Violation("native_form", node.lineno, f"imports {MODULE}.{alias.name}: {reason}")
    accepted = {id(n) for b in found for n in ast.walk(b.call.func)}
    for node, dotted in references:
        if id(node) not in accepted:
            reason = _LOAD if dotted == f"{MODULE}.load" else FORM
            yield Violation("native_form", node.lineno, f"uses {dotted}: {reason}")
    bindings, declared = _module_bindings(tree)
    seen: set[str] = set()
    for build in found:
        if bindings[build.target] != 1 or build.target in declared or build.target in seen:
            yield Violation("native_form", build.call.lineno,
                            f"`{build.target}` is bound more than once: a built extension's name is bound once")
        seen.add(build.target)


def _read(tree: ast.Module, build: _Build, found: list[_Build]) -> ExtensionBuild:
    """The build's arguments, read from literals and module-level constants."""
    call = build.call
    if len(call.args) > len(POSITIONAL) or any(isinstance(a, ast.Starred) for a in call.args):
        raise _Refused(call.lineno, f"load_inline takes at most {', '.join(POSITIONAL)} by position")
    if any(k.arg is None for k in call.keywords):
        raise _Refused(call.lineno, "load_inline's arguments must be written out, not unpacked from **")
    given = list(zip(POSITIONAL, call.args, strict=False)) + [(k.arg, k.value) for k in call.keywords if k.arg]
    constants = _Constants(tree, build.index, found)
    values = {name: constants.value(node) for name, node in given}
    try:
        return from_arguments(values)
    except ValueError as exc:
        raise _Refused(call.lineno, f"load_inline: {exc}") from exc


def _build_problems(found: list[_Build], builds: list[ExtensionBuild], forbidden: frozenset[str]
                    ) -> Iterator[Violation]:
    names: set[str] = set()
    for build, ext in zip(found, builds, strict=True):
        line = build.call.lineno
        if ext.name in names:
            yield Violation("native_form", line, f"two extensions are named `{ext.name}`: each needs a name of its own")
        names.add(ext.name)
        for argument in ("extra_cflags", "extra_cuda_cflags", "extra_ldflags"):
            for reason in flag_problems(argument, getattr(ext, argument)):
                yield Violation("native_flag", line, reason)
        for kind, sources in (("cpp_sources", ext.cpp_sources), ("cuda_sources", ext.cuda_sources),
                              ("functions", tuple(f"{f}();" for f in ext.functions or ()))):
            for i, text in enumerate(sources):
                where = kind if len(sources) == 1 else f"{kind}[{i}]"
                for source_line, rule, reason in source_problems(text, forbidden):
                    yield Violation(rule, line, f"{where}, line {source_line}: {reason}")


class _Constants:
    """Values of module-level names bound once, before the statement at `before`, to a literal."""

    def __init__(self, tree: ast.Module, before: int, builds: list[_Build]) -> None:
        self._tree = tree
        self._before = before
        self._bindings, self._declared = _module_bindings(tree)
        self._build_arguments = {
            id(n) for b in builds for k in (*b.call.args, *(k.value for k in b.call.keywords)) for n in ast.walk(k)
        }

    def value(self, node: ast.expr, depth: int = 0) -> Any:
        if depth > 16:
            raise _Refused(node.lineno, "load_inline's arguments nest too deep")
        text = literal_string(node)
        if text is not None:
            return text
        if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, int, str))):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.value(e, depth + 1) for e in node.elts]
        if isinstance(node, ast.Name):
            return self._named(node, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # HEADER + KERNEL, BASE_FLAGS + [...]
            left, right = self.value(node.left, depth + 1), self.value(node.right, depth + 1)
            if type(left) is type(right) and isinstance(left, (str, list)):
                return left + right
        if isinstance(node, ast.JoinedStr):  # f"...{BLOCK}..." of such names, without conversions or formats
            return "".join(self._piece(v, depth) for v in node.values)
        raise self._not_literal(node)

    def _piece(self, node: ast.expr, depth: int) -> str:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.FormattedValue) and node.conversion == -1 and node.format_spec is None:
            value = self.value(node.value, depth + 1)
            if isinstance(value, (str, int)) and not isinstance(value, bool):
                return str(value)
        raise self._not_literal(node)

    @staticmethod
    def _not_literal(node: ast.expr) -> _Refused:
        return _Refused(node.lineno, f"load_inline's argument `{ast.unparse(node)[:60]}` must be a literal or a "
                                     "module-level name bound once, before the call, to one (or `+` and f-strings "
                                     "of such)")

    def _named(self, node: ast.Name, depth: int) -> Any:
        name = node.id
        where = next((i for i, s in enumerate(self._tree.body[: self._before]) if _binds(s, name)), None)
        if where is None or self._bindings[name] != 1 or name in self._declared:
            raise _Refused(node.lineno, f"load_inline's argument `{name}` must be a module-level name bound once, "
                                        "before the call, to a literal")
        value_node = self._tree.body[where].value  # type: ignore[attr-defined]
        if isinstance(value_node, ast.List) and self._read_elsewhere(name):
            raise _Refused(node.lineno, f"the list `{name}` is read outside load_inline's arguments, where it could "
                                        "be changed in place: write it in the call, or as a tuple")
        return self.value(value_node, depth + 1)

    def _read_elsewhere(self, name: str) -> bool:
        return any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
            and id(n) not in self._build_arguments
            for n in ast.walk(self._tree)
        )


def _binds(stmt: ast.stmt, name: str) -> bool:
    """A top-level `name = value` or `name: T = value`."""
    if isinstance(stmt, ast.Assign):
        return len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name
    return (isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name)
            and stmt.target.id == name)


def _module_bindings(tree: ast.Module) -> tuple[Counter[str], set[str]]:
    """How often each name is bound in the module's own scope (assignments, imports, definitions, loop and
    exception targets, walrus), and the names any function declares `global` or `nonlocal`."""
    counts: Counter[str] = Counter()
    declared = {name for n in ast.walk(tree) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                counts[child.name] += 1
                continue
            if isinstance(child, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                counts.update(n.target.id for n in ast.walk(child)
                              if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name))
                continue
            if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
                counts[child.id] += 1
            elif isinstance(child, ast.alias) and child.name != "*":
                counts[child.asname or child.name.split(".")[0]] += 1
            elif isinstance(child, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and child.name:
                counts[child.name] += 1
            elif isinstance(child, ast.MatchMapping) and child.rest:
                counts[child.rest] += 1
            visit(child)

    visit(tree)
    return counts, declared


def _masked(tree: ast.Module, found: list[_Build], imports: list[ast.Import | ast.ImportFrom]) -> ast.Module:
    """The module without its builds (each extension's name bound to None) and without the imports of
    `torch.utils.cpp_extension` (`import torch.utils.cpp_extension` still binds `torch`)."""
    builds = {b.index: b for b in found}
    touched = {id(n) for n in imports}
    body: list[ast.stmt] = []
    for index, stmt in enumerate(tree.body):
        if index in builds:
            body.append(_located(ast.Assign(targets=[ast.Name(builds[index].target, ast.Store())],
                                            value=ast.Constant(None)), stmt))
        elif id(stmt) in touched:
            body.append(_without_module(stmt))  # type: ignore[arg-type]
        else:
            body.append(stmt)
    return ast.Module(body=body, type_ignores=tree.type_ignores)


def _without_module(stmt: ast.Import | ast.ImportFrom) -> ast.stmt:
    kept: list[ast.alias] = []
    for alias in stmt.names:
        dotted = alias.name if isinstance(stmt, ast.Import) else f"{stmt.module}.{alias.name}"
        if not (dotted == MODULE or dotted.startswith(MODULE + ".")):
            kept.append(alias)
        elif isinstance(stmt, ast.Import) and alias.asname is None:
            kept.append(ast.alias(name=alias.name.split(".")[0]))
    if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.module.startswith(MODULE):
        kept = []
    if not kept:
        return _located(ast.Pass(), stmt)
    node = ast.Import(names=kept) if isinstance(stmt, ast.Import) else ast.ImportFrom(stmt.module, kept, stmt.level)
    return _located(node, stmt)


def _located(node: ast.stmt, like: ast.stmt) -> ast.stmt:
    return ast.fix_missing_locations(ast.copy_location(node, like))
