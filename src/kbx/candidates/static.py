"""The static stage: what can be decided from a candidate's source without running it (DESIGN §5).

Checks, in order: there is code; it parses (else COMPILE_ERROR); it defines the entry point at top level with
the task's exact parameters and defaults (for a KernelBench problem: a class `ModelNew` whose constructor and
forward take as many arguments as `Model`'s); it defines at least one `@triton.jit` kernel and uses it; no kernel
reads a plain-number module global (compiled Triton rejects those, the CPU interpreter does not, so without this
check a CPU verdict would be kinder than a GPU one). Anti-cheat rules (`kbx.candidates.anticheat`, given the
task's forbidden operations) run first. A candidate that builds CUDA extensions with `load_inline` (the CUDA
backend, `kbx.candidates.cuda`) has its builds read and judged before them, and instead of the Triton checks
must build a `__global__` kernel and use its extension. Under `Policy.REFERENCE_CODE` (the task's own reference code
as the candidate, `kbx.candidates.policy`) no kernel is required and the task's forbidden operations are allowed;
every other check holds.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from kbx import syntax
from kbx.candidates.anticheat import find_violation
from kbx.candidates.cuda import kernel_problem, read_native
from kbx.candidates.names import Names
from kbx.candidates.policy import Policy
from kbx.evaluation.extensions import ExtensionBuild
from kbx.status import Status
from kbx.tasks.meta import signature_of
from kbx.tasks.spec import ModuleInterface, Signature, normalise_op


@dataclass(frozen=True)
class StaticVerdict:
    """None status means the candidate may run."""

    status: Status | None
    check: str = ""
    """Name of the failing check, e.g. `entry_point`."""
    message: str = ""
    backend: str = "triton"
    """`triton`, or `cuda` for a candidate that builds kernels with `load_inline` (`kbx.candidates.cuda`)."""
    extensions: tuple[ExtensionBuild, ...] = ()
    """The extensions a CUDA candidate builds, as the static stage read them."""


PASS = StaticVerdict(None)


def check_static(
    code: str | None,
    entry_point: str,
    signature: Signature,
    problem: str | None = None,
    forbidden: Iterable[str] = (),
    module: ModuleInterface | None = None,
    policy: Policy = Policy.KERNEL,
) -> StaticVerdict:
    """Run the static checks on a candidate's source.

    Args:
        code: the candidate's source, None when none could be extracted.
        entry_point: what the candidate must define (`Task.entry_point`: the task's name, or `ModelNew`).
        signature: the parameters that function must have.
        problem: why there is no code, when `code` is None.
        forbidden: the task's forbidden torch operations (`Task.forbidden`).
        module: for a KernelBench problem, the interface its `ModelNew` class repeats (`Task.module`); the
            entry point is then that class, not a function.
        policy: the rules to apply (`Candidate.policy`); `REFERENCE_CODE` leaves out the kernel and forbidden-op
            rules.
    """
    if code is None or not code.strip():
        return StaticVerdict(Status.REJECTED_STATIC, "has_code", problem or "the candidate has no code")
    try:
        if not policy.own_kernels_required:
            forbidden = ()
        return _check_source(code, entry_point, module or signature, forbidden, policy)
    except Exception as exc:  # hostile source (nesting, size) must not take the run down: the candidate's verdict
        what = f"{type(exc).__name__}: {str(exc)[:200]}".rstrip(": ")
        return StaticVerdict(Status.REJECTED_STATIC, "analysable", f"the source could not be analysed ({what})")


def _check_source(
    code: str, entry_point: str, signature: Signature | ModuleInterface, forbidden: Iterable[str], policy: Policy
) -> StaticVerdict:
    try:
        tree = syntax.parse(code)
    except syntax.Unparsable as exc:
        return StaticVerdict(Status.REJECTED_STATIC, "analysable", f"the source could not be analysed: {exc.msg}")
    except SyntaxError as exc:
        return StaticVerdict(Status.COMPILE_ERROR, "parses", f"syntax error on line {exc.lineno}: {exc.msg}")
    tree = without_main_block(tree)
    native = read_native(tree, frozenset(normalise_op(f) for f in forbidden))  # a CUDA candidate's extensions
    violation = native.violation or find_violation(native.tree, forbidden, native.modules)
    if violation is not None:
        return StaticVerdict(Status.REJECTED_STATIC, f"anticheat.{violation.rule}", violation.message())
    checks = [c for c in _BACKEND_CHECKS[native.backend] if policy.own_kernels_required or c not in _OWN_KERNELS]
    for check in (_entry_point, *checks):
        verdict = check(tree, entry_point, signature)
        if verdict.status is not None:
            return verdict
    return StaticVerdict(None, backend=native.backend, extensions=native.builds)


def without_main_block(tree: ast.Module) -> ast.Module:
    """The module as the worker imports it: a top-level `if __name__ == "__main__":` block (a self-test beside the
    kernel, calling torch to compare) never runs there, since the candidate is imported under another name (and no
    candidate may rebind `__name__`, reach `globals()` or `sys.modules`), so it is not judged; its `else:` runs and
    is."""
    body: list[ast.stmt] = []
    for node in tree.body:
        body.extend(node.orelse if isinstance(node, ast.If) and _is_main_test(node.test) else [node])
    return ast.Module(body=body, type_ignores=tree.type_ignores)


def _is_main_test(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and any(
        isinstance(s, ast.Constant) and s.value == "__main__" for s in sides
    )


def _entry_point(tree: ast.Module, entry_point: str, signature: Signature | ModuleInterface) -> StaticVerdict:
    if isinstance(signature, ModuleInterface):
        return _module_class(tree, entry_point, signature)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry_point]
    if not defs:
        return StaticVerdict(
            Status.REJECTED_STATIC, "entry_point", f"no top-level function `{entry_point}` is defined"
        )
    try:
        actual = signature_of(defs[-1])
    except ValueError as exc:
        return StaticVerdict(Status.REJECTED_STATIC, "entry_point", f"`{entry_point}`: {exc}")
    if actual != signature:
        return StaticVerdict(
            Status.REJECTED_STATIC,
            "entry_point",
            f"`{entry_point}{actual.render()}` must have the parameters {signature.render()}",
        )
    return PASS


def _module_class(tree: ast.Module, name: str, interface: ModuleInterface) -> StaticVerdict:
    """A top-level class `name` whose `__init__` and `forward`, where it defines them, take the number of arguments
    `Model`'s do (KernelBench passes them by position, so their names are free)."""
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    if not classes:
        return StaticVerdict(Status.REJECTED_STATIC, "entry_point", f"no top-level class `{name}` is defined")
    methods = {n.name: n for n in classes[-1].body if isinstance(n, ast.FunctionDef)}
    init_count = sum(not p.startswith("*") for p in interface.init)
    forward = interface.forward.parameters
    wanted = {"__init__": (init_count, init_count), "forward": (sum(not p.has_default for p in forward), len(forward))}
    for method, (least, most) in wanted.items():
        if method not in methods:
            continue
        low, high = _positional_range(methods[method])
        if high < least or low > most:
            takes = f"{low}" if low == high else f"{low} to {'any number' if high > 1 << 20 else high}"
            needs = f"{least}" if least == most else f"{least} to {most}"
            return StaticVerdict(Status.REJECTED_STATIC, "entry_point",
                                 f"`{name}.{method}` takes {takes} argument(s) after self; Model's takes {needs}")
    return PASS


def _positional_range(func: ast.FunctionDef) -> tuple[int, int]:
    """How many positional arguments after `self` a method accepts, at least and at most."""
    args = func.args
    positional = len(args.posonlyargs) + len(args.args) - 1
    required = positional - len(args.defaults)
    return max(required, 0), (1 << 30) if args.vararg else positional


def _uses_triton_kernel(tree: ast.Module, entry_point: str, signature: Signature | ModuleInterface) -> StaticVerdict:
    kernels = {node.name for node in Names(tree).kernels}
    if not kernels:
        return StaticVerdict(Status.REJECTED_STATIC, "triton_kernel", "no @triton.jit kernel is defined")
    used = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in kernels
    }
    if not used:
        return StaticVerdict(
            Status.REJECTED_STATIC, "triton_kernel", f"kernel(s) {', '.join(sorted(kernels))} are never launched"
        )
    return PASS


def _kernel_globals(tree: ast.Module, entry_point: str, signature: Signature | ModuleInterface) -> StaticVerdict:
    plain = {name for node in tree.body for name in _plain_literal_globals(node)}
    for func in Names(tree).kernels:
        local = {a.arg for a in func.args.args} | {
            n.id for n in ast.walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        body = [node for stmt in func.body for node in ast.walk(stmt)]  # defaults may read globals
        for node in body:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in plain - local:
                return StaticVerdict(
                    Status.COMPILE_ERROR,
                    "kernel_globals",
                    f"kernel `{func.name}` reads the global `{node.id}` (line {node.lineno}), which is not a "
                    f"tl.constexpr; compiled Triton rejects this: write `{node.id} = tl.constexpr(...)`",
                )
    return PASS


def _uses_cuda_kernel(tree: ast.Module, entry_point: str, signature: Signature) -> StaticVerdict:
    problem = kernel_problem(tree)
    return PASS if problem is None else StaticVerdict(Status.REJECTED_STATIC, "cuda_kernel", problem)


_BACKEND_CHECKS = {"triton": (_uses_triton_kernel, _kernel_globals), "cuda": (_uses_cuda_kernel,)}
"""The checks each backend adds to the entry point's: a Triton candidate launches a `@triton.jit` kernel whose
globals compiled Triton accepts; a CUDA candidate builds a `__global__` kernel and uses its extension."""

_OWN_KERNELS = frozenset({_uses_triton_kernel, _uses_cuda_kernel})
"""The checks that the candidate has kernels of its own, which `Policy.REFERENCE_CODE` leaves out."""


def _plain_literal_globals(node: ast.stmt) -> list[str]:
    """Module-level names bound to a number, string or bool literal (not wrapped in constexpr)."""
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets, value = [node.target], node.value
    else:
        return []
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    if not isinstance(value, ast.Constant) or value.value is None:
        return []
    return [t.id for t in targets if isinstance(t, ast.Name)]
