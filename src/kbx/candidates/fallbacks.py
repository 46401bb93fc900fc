"""Static rules against computing the result some way other than the candidate's own kernels: a try/except that
falls back when the kernel fails (`try_fallback`), and the task's core operation done by torch, numpy or
`operator` (`torch_fallback`, from the task's `forbidden` list)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from kbx.candidates.capabilities import CORE_WORK, KERNEL_NAMESPACES
from kbx.candidates.names import Names, root
from kbx.candidates.violation import FUNCTION_NODES, Source, Violation
from kbx.tasks.spec import MATMUL_OPERATOR, normalise_op


def try_fallback(src: Source) -> Iterator[Violation]:
    hides = "a fallback path hides a failing kernel by computing the result some other way"
    inside = {id(n) for f in ast.walk(src.tree) if isinstance(f, FUNCTION_NODES) for s in f.body for n in ast.walk(s)}
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
        elif isinstance(node, FUNCTION_NODES) and node.name in {"__exit__", "__aexit__"} and _returns_truthy(node):
            yield Violation("try_fallback", node.lineno, f"a context manager that swallows exceptions: {hides}")


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
        if isinstance(stmt, (*FUNCTION_NODES, ast.ClassDef)):
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


def torch_fallback(src: Source) -> Iterator[Violation]:
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
        if method is not None and normalise_op(method) in src.forbidden and not _calls_extension(node, src):
            yield Violation("torch_fallback", node.lineno, f"calls the method .{method}(): {CORE_WORK}")
        if MATMUL_OPERATOR in src.forbidden and _is_matmul_operator(node):
            yield Violation("torch_fallback", node.lineno, f"uses the @ operator (a torch matmul): {CORE_WORK}")


def _is_fallback(dotted: str, forbidden: frozenset[str]) -> bool:
    if dotted in _TORCH_DTYPES or dotted in _INFIX_OPERATORS:
        return False
    return root(dotted) not in KERNEL_NAMESPACES and normalise_op(dotted.rsplit(".", 1)[-1]) in forbidden


_TORCH_DTYPES = frozenset(f"torch.{name}" for name in (
    "bool", "uint8", "int8", "int16", "int32", "int64", "short", "int", "long", "float16", "half", "bfloat16",
    "float32", "float", "float64", "double", "complex64", "cfloat", "complex128", "cdouble", "float8_e4m3fn",
    "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"))
"""`torch.bool` and its kin name dtypes, not operations: `input.dtype == torch.bool` in count_nonzero's wrapper, whose
task forbids `bool`, was rejected as a fallback (2026-11-28)."""

_INFIX_OPERATORS = frozenset(f"operator.{name}" for name in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and_", "or_", "xor", "lshift", "rshift", "neg", "pos",
    "invert", "inv", "iadd", "isub", "imul", "itruediv", "ifloordiv", "imod", "ipow", "iand", "ior", "ixor",
    "ilshift", "irshift"))
"""`operator` functions whose infix form (`a * b`) no static rule forbids: the torch work they may do on tensors is
the runtime's to count (`runtime.torch_compute`), as for the infix form; `functools.reduce(operator.mul, shape, 1)`,
a shape's product, was rejected where the task forbids `mul` (2026-11-28). `operator.matmul` stays with `@`."""


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


def _calls_extension(node: ast.AST, src: Source) -> bool:
    """`ext.relu(x)` where `ext` is bound to one of the candidate's own compiled extensions."""
    func = node.func if isinstance(node, ast.Call) else None
    return (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id in src.extensions)


def _is_matmul_operator(node: ast.AST) -> bool:
    return isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.MatMult)
