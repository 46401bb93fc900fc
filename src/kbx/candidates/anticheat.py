"""Static anti-cheat rules: constructs an honest Triton candidate never needs (issue 4, static layer).

Each rule has a name and a reason; the first rule a candidate breaks rejects it as REJECTED_STATIC before anything
runs. The capability rules (introspection, processes, threads, side streams, dynamic code, patching modules, torch
entry points that generate or run kernels) hold for every task. The task-specific rule forbids the PyTorch
operations that would do the task's core work (the task's `forbidden` list). No honest kernel may trip any of them:
the suite's own solutions are the false-positive test. A static rule can be evaded by code clever enough; runtime
defences (audit hook, identity snapshots, launch counting) live in the candidate worker.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

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
    "runpy": "running other files hides what runs and can load the task's reference",
    "signal": "signal handlers can interfere with the harness",
    "pickle": "unpickling runs arbitrary code",
    "marshal": "loading code objects hides what runs",
}
"""Modules whose import is rejected, with the reason."""

_GRAPH_REPLAY = "CUDA graph replay can skip or reorder work between timed calls"

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
    "sys.path": "changing the import path can reach the harness and the task's files",
    "torch.cuda.Stream": "side streams hide work from the timed stream",
    "torch.cuda.stream": "side streams hide work from the timed stream",
    "torch.cuda.set_stream": "side streams hide work from the timed stream",
    "torch.cuda.CUDAGraph": _GRAPH_REPLAY,
    "torch.cuda.graph": _GRAPH_REPLAY,
    "torch.cuda.graphs": _GRAPH_REPLAY,
    "torch.cuda.make_graphed_callables": _GRAPH_REPLAY,
    "torch.cuda.jiterator": "jiterator compiles CUDA C++ from strings; kernels must be Triton",
    "torch.library": "registering operators can replace what the harness calls",
    "torch.utils.cpp_extension": "compiled extensions are not Triton kernels",
    "torch.ops": "calling ATen operators directly lets torch compute instead of the candidate's kernels",
    "torch.compile": "Inductor would generate the kernels instead of the candidate",
    "torch.jit": "TorchScript would compile and fuse torch operations instead of the candidate's kernels",
    "torch.fx": "FX graphs trace and rewrite torch programs; a kernel needs neither",
    "torch.export": "exported programs run torch's kernels, not the candidate's",
    "torch.overrides": "torch function modes intercept every torch call, the harness's included",
    "torch.hub": "loading code from elsewhere hides what runs",
    "torch.package": "packages unpickle and run code that is not in the candidate",
    "torch.load": "unpickling runs arbitrary code",
}
"""Dotted names (module attributes) whose use is rejected, with the reason. Private torch names (`torch._C`,
`torch._dynamo`, `torch._inductor`, `torch._refs`, `torch._int_mm`, ...) are rejected too: see PRIVATE_TORCH."""

PRIVATE_TORCH = "private torch internals (the dispatcher, dynamo, inductor, private ops) run torch's kernels"
"""The reason any `torch._name` (one leading underscore, any depth) is rejected."""

DYNAMIC_BUILTINS: dict[str, str] = {
    "__import__": "dynamic imports hide what the candidate uses",
    "exec": "executing strings hides what runs",
    "eval": "evaluating strings hides what runs",
    "compile": "compiling strings hides what runs",
    "globals": "rewriting module globals at run time hides what runs",
    "vars": "reading a namespace as a dict hides what runs",
    "breakpoint": "debuggers do not belong in a kernel",
}
"""Builtins whose call is rejected."""

KERNEL_NAMESPACES: tuple[str, ...] = ("triton", "math")
"""Top-level modules whose functions never run torch compute: a forbidden name there is fine (`tl.sum`, `tl.dot`,
`libdevice.erf`, `math.exp` on a Python number). A forbidden name resolved anywhere else (torch, numpy,
operator, ...) is a fallback."""

_CORE_WORK = "the task's core operation must be computed by the candidate's own kernels"


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
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names if a.name != "*"]
        for name in names:
            if root(name) in FORBIDDEN_MODULES:
                yield Violation("forbidden_import", node.lineno, f"imports {name}: {FORBIDDEN_MODULES[root(name)]}")
            reason = forbidden_reason(name)
            if reason:
                yield Violation("forbidden_call", node.lineno, f"imports {name}: {reason}")


def _forbidden_attributes(src: _Source) -> Iterator[Violation]:
    for node, dotted in src.names.references():
        reason = forbidden_reason(dotted)
        if reason:
            yield Violation("forbidden_call", node.lineno, f"uses {dotted}: {reason}")


def _dynamic_code(src: _Source) -> Iterator[Violation]:
    aliases = src.names.aliases
    for node in ast.walk(src.tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in DYNAMIC_BUILTINS
            and node.func.id not in aliases
        ):
            yield Violation("dynamic_code", node.lineno, f"calls {node.func.id}(): {DYNAMIC_BUILTINS[node.func.id]}")
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


def forbidden_reason(dotted: str) -> str | None:
    """Why the dotted name (or a module it lies under) may not be used, or None when it may."""
    for name, reason in FORBIDDEN_CALLS.items():
        if dotted == name or dotted.startswith(name + "."):
            return reason
    parts = dotted.split(".")
    if parts[0] == "torch" and any(p.startswith("_") and not p.endswith("__") for p in parts[1:]):
        return PRIVATE_TORCH
    return None


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
                    yield Violation("torch_fallback", node.lineno, f"imports {node.module}.{a.name}: {_CORE_WORK}")
    for node, dotted in names.references():
        if id(node) not in namespaces and _is_fallback(dotted, src.forbidden):
            verb = "calls" if id(node) in called else "uses"
            yield Violation("torch_fallback", node.lineno, f"{verb} {dotted}: {_CORE_WORK}")
    for node in ast.walk(src.tree):
        if names.in_kernel(node):
            continue  # Triton values: `acc.sum(0)`, `x.to(...)` are kernel code
        method = _method_name(node, names)
        if method is not None and normalise_op(method) in src.forbidden:
            yield Violation("torch_fallback", node.lineno, f"calls the method .{method}(): {_CORE_WORK}")
        if MATMUL_OPERATOR in src.forbidden and _is_matmul_operator(node):
            yield Violation("torch_fallback", node.lineno, f"uses the @ operator (a torch matmul): {_CORE_WORK}")


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
    _uses_reference,
    _try_fallback,
    _torch_fallback,
)
