"""A KernelBench problem's size constants, and the small odd sizes its check workloads set them to.

A problem states its sizes as module-level constants (`batch_size = 4096`, `dim = 393216`,
`depth, height, width = 16, 32, 32`, `input_shape = (batch_size, 3, 224, 224)`) that `get_inputs` and
`get_init_inputs` read when called. The bench workload runs them as published. The smoke and check workloads
execute the same source with every large constant replaced by a small odd value (`rewrite`), so the CPU interpreter
can run them and every size leaves a partial last block.

Which constants move (`plan`):
- integer literals, alone or in a tuple or list literal, bound at module level (an expression of literals such as
  `1024 * 2` counts as one); a constant computed from other names (`dim = batch_size * 2`) is recomputed from the
  moved ones, since the rewritten module runs whole;
- only those of at least SHRINK_FROM: kernel sizes, strides, paddings, channel counts of 3 and layer counts stay;
- constants named like a divisor (`groups`, `num_heads`, `patch_size`, `block_len`, ...) stay when small, and
  become DIVISOR_VALUE when large; every moved size named like what a divisor divides (channels, features,
  embedding widths, image sizes, sequence lengths) that the published divisor divided stays a multiple of it;
- equal published values stay equal (`in_features = out_features = 8192` in a residual block), and the order of the
  published values is kept (`seq_len <= max_seqlen`); new values start above the widest window that stays (a
  pooling window of 11 still fits) and grow by a few units per distinct published value, so no two sizes coincide
  by accident;
- how large they start (`shrink`, `Role`): the largest first value whose largest `get_inputs` tensor, as estimated
  from its call arguments, stays within the role's budget of elements.

What cannot move: a size written inside `get_inputs` or inside the model's code (`torch.randn(16, 1024)`,
`nn.Linear(16 * 5 * 5, 120)`). A problem whose constants all stay has no smoke or check workload: it is timed on a
GPU, and the CPU cannot run it. A problem whose model hard-codes a size that depends on a moved one fails at the
check sizes; `kbx tasks validate --suite kernelbench:PATH` lists those.

Everything here is pure Python on the problem's syntax tree: the orchestrator plans workloads without torch.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

SHRINK_FROM = 17
"""Integer constants at least this large are sizes to shrink; smaller ones (kernel sizes, strides, channel counts of
3, layer counts) stay as published."""

DIVISOR_VALUE = 3
"""What a large divisor-like constant (`num_groups = 512`) becomes; the sizes it divides become odd multiples of it."""

_DIVISOR_NAME = re.compile(r"^(num_|n_)?(groups?|heads?)$|patch|window|block_(len|size)|chunk", re.IGNORECASE)
"""Names of constants that other sizes must be multiples of (GroupNorm's groups, attention heads, ViT patches,
Swin windows, Mamba's chunk length)."""
_DIVIDEND_NAME = re.compile(r"channel|feature|hidden|embd|embed|d_model|dimension|^dim$|_dim$|seq|^size$"
                            r"|(?<!batch)_size$", re.IGNORECASE)
"""Names of the sizes a divisor divides (channels, features, embedding widths, image sizes, sequence lengths); a
batch size or a spatial `dim1` that a published divisor happens to divide stays free to become odd."""

_WINDOW_NAME = re.compile(r"kernel|pool|window", re.IGNORECASE)
"""Names of constants that sizes must not fall below (a convolution's or pooling's window)."""
_DILATION_NAME = re.compile(r"dilation", re.IGNORECASE)


@dataclass(frozen=True)
class Role:
    """How one shrunk workload picks its sizes: the largest first value of `firsts` whose largest input (as
    `input_elements` estimates it) has at most `budget` elements, the next distinct size `step` above the last."""

    firsts: tuple[int, ...]
    step: int
    budget: int


SMOKE = Role(firsts=(17, 13, 9), step=2, budget=1 << 12)
"""Tiny sizes, a single block or two."""
CHECK = Role(firsts=(129, 97, 65, 49, 33, 25, 17, 13, 9), step=4, budget=1 << 16)
"""Sizes that span several blocks of a 2-D input and still leave the interpreter a few seconds per call."""
NETWORK_SMOKE = Role(firsts=(33, 25), step=2, budget=1 << 16)
NETWORK_CHECK = Role(firsts=(65, 49, 33), step=4, budget=1 << 18)
"""The same for whole networks (level 3): a deep convolutional network halves its images five times or more, so
its sizes cannot go as low."""

_OPERATORS: Mapping[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}


@dataclass(frozen=True)
class Constant:
    """One integer a problem's module binds from literals."""

    key: str
    """The name it is bound to (`batch_size`), or the name and position in a tuple or list literal
    (`input_shape[2]`)."""
    value: int


def constants(module: ast.Module) -> dict[str, int]:
    """Every integer constant the module binds at top level, by key (the last binding of a key wins, as it does
    when the module runs)."""
    found: dict[str, int] = {}
    for statement in module.body:
        for constant in _bound(statement):
            found[constant.key] = constant.value
    return found


@dataclass(frozen=True)
class Plan:
    """The new values of one shrunk workload."""

    sizes: dict[str, int]
    """key -> new value of every size that moves."""
    divisors: dict[str, int]
    """key -> new value of every large divisor-like constant (DIVISOR_VALUE); these never move again."""
    multiples: dict[str, int]
    """key -> what the size must stay a multiple of (only where that is more than 1)."""
    floor: int
    """The least value a perturbed copy may give a size: above the widest window that stays, and no smaller than
    the role's smallest first value (a network that pools twice needs some room)."""

    def values(self) -> dict[str, int]:
        """Every constant that changes, for `rewrite`."""
        return {**self.sizes, **self.divisors}


def is_divisor(key: str) -> bool:
    """Whether a constant is named like one other sizes must be multiples of (`num_groups`, `heads`, `patch_size`)."""
    return bool(_DIVISOR_NAME.search(key.split("[", 1)[0]))


def shrink(module: ast.Module, found: Mapping[str, int], role: Role) -> Plan | None:
    """The sizes of one shrunk workload of the problem `module` (its constants `found`): `plan` with the largest
    first value whose largest input stays within the role's budget (the smallest, when none does: sizes written
    inside `get_inputs` do not shrink); None when nothing is large enough to shrink."""
    chosen = None
    for first in role.firsts:
        chosen = plan(found, first, role.step, least=min(role.firsts))
        if chosen is None or input_elements(module, {**found, **chosen.values()}) <= role.budget:
            return chosen
    return chosen


def plan(found: Mapping[str, int], first: int, step: int, least: int = 0) -> Plan | None:
    """New values for the constants to shrink: odd (or odd multiples of a divisor they must stay multiples of),
    in the order of their published values, starting at `first` or above the widest window that stays (a kernel
    or pooling size, dilated); None when nothing is large enough to shrink. `least`: the floor of a perturbed copy
    besides the window."""
    divisors = {k: v for k, v in found.items() if is_divisor(k) and v >= 2}
    moved_divisors = {k: DIVISOR_VALUE for k, v in divisors.items() if v >= SHRINK_FROM}
    published = {k: v for k, v in found.items() if v >= SHRINK_FROM and k not in divisors}
    if not published and not moved_divisors:
        return None
    staying = {k: v for k, v in found.items() if k not in published and k not in moved_divisors}
    window = _widest_window(staying) + 2
    value_of: dict[int, int] = {}
    multiple_of: dict[int, int] = {}
    previous = 0
    for index, value in enumerate(sorted(set(published.values()))):
        dividend = any(_DIVIDEND_NAME.search(k.split("[", 1)[0]) for k, v in published.items() if v == value)
        multiple = math.lcm(*(moved_divisors.get(k, d) for k, d in divisors.items() if dividend and value % d == 0))
        target = max(first, window) + step * index
        target = max(target, previous + 1)
        value_of[value] = previous = odd_multiple_at_least(target, multiple)
        multiple_of[value] = multiple
    return Plan(
        sizes={k: value_of[v] for k, v in published.items()},
        divisors=moved_divisors,
        multiples={k: multiple_of[v] for k, v in published.items() if multiple_of[v] > 1},
        floor=max(window, least),
    )


def input_elements(module: ast.Module, values: Mapping[str, int]) -> int:
    """An estimate of the largest input `get_inputs` makes with these constant values: the largest product of the
    integer arguments of one call in its body (`torch.rand(batch_size, dim)`, `torch.randn(*input_shape)`, a
    literal `224`, a constant computed from others); a name it cannot resolve counts as 1."""
    values = _environment(module, values)
    functions = [n for n in module.body if isinstance(n, ast.FunctionDef) and n.name == "get_inputs"]
    largest = 0
    for call in (n for f in functions for n in ast.walk(f) if isinstance(n, ast.Call)):
        product = 1
        for arg in call.args:
            product *= math.prod(_ints(arg, values))
        largest = max(largest, product)
    return largest


def _environment(module: ast.Module, values: Mapping[str, int]) -> dict[str, int]:
    """`values` and every integer the module computes from them at top level, in order (`num_channels =
    embed_dim`, `hidden = width * 4`, `input_shape = (batch_size, 3, 224)`)."""
    known = dict(values)
    for statement in module.body:
        parts = _targets(statement)
        if parts is None:
            continue
        for key, node in (pair for target in parts[0] for pair in _pairs(target, parts[1])):
            number = None if key in values else _evaluated(node, known)
            if number is not None:
                known[key] = number
    return known


def _ints(node: ast.expr, values: Mapping[str, int]) -> list[int]:
    """The positive integers one call argument stands for: an integer expression of literals and constants
    (`depth * stride`), or a tuple constant's elements (`*input_shape`)."""
    if isinstance(node, ast.Starred):
        node = node.value
    if isinstance(node, (ast.Tuple, ast.List)):
        return [i for element in node.elts for i in _ints(element, values)]
    if isinstance(node, ast.Name) and node.id not in values:
        return [max(v, 1) for k, v in values.items() if k.startswith(node.id + "[")]
    number = _evaluated(node, values)
    return [number] if number is not None and number > 0 else []


def _evaluated(node: ast.expr, values: Mapping[str, int]) -> int | None:
    """An integer expression of literals and the constants in `values`, else None."""
    if isinstance(node, ast.Name):
        return values.get(node.id)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS and not isinstance(node.op, ast.Pow):
        left, right = _evaluated(node.left, values), _evaluated(node.right, values)
        if left is None or right is None or (isinstance(node.op, ast.FloorDiv) and right == 0):
            return None
        return _OPERATORS[type(node.op)](left, right)
    return literal_int(node)


def _widest_window(staying: Mapping[str, int]) -> int:
    """The widest window among the constants that stay (a kernel or pooling size), dilated by the largest
    dilation; 0 when there is none."""
    windows = [v for k, v in staying.items() if _WINDOW_NAME.search(k)]
    dilation = max([v for k, v in staying.items() if _DILATION_NAME.search(k)] + [1])
    return dilation * (max(windows) - 1) + 1 if windows else 0


def odd_multiple_at_least(target: int, multiple: int) -> int:
    """The smallest odd multiple of `multiple` that is at least `target` (odd, for a multiple of 1)."""
    factor = max(1, -(-target // multiple))
    return multiple * (factor if factor % 2 else factor + 1)


def rewrite(module: ast.Module, values: Mapping[str, int]) -> ast.Module:
    """The module with the constants of `values` bound to those values instead (every binding of a key); statements
    that compute from them are left as they are, so they follow."""
    if not values:
        return module
    body = [_rewritten(statement, values) for statement in module.body]
    return ast.fix_missing_locations(ast.Module(body=body, type_ignores=module.type_ignores))


def literal_int(node: ast.expr) -> int | None:
    """The value of an integer expression made of literals only (`4096`, `1024 * 2`, `-1`, `2 ** 20`), else None.
    Booleans are not integers here."""
    if isinstance(node, ast.Constant):
        return node.value if type(node.value) is int else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = literal_int(node.operand)
        return None if value is None else (-value if isinstance(node.op, ast.USub) else value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = literal_int(node.left), literal_int(node.right)
        if left is None or right is None or (isinstance(node.op, ast.Pow) and not 0 <= right <= 64):
            return None
        if isinstance(node.op, ast.FloorDiv) and right == 0:
            return None
        return _OPERATORS[type(node.op)](left, right)
    return None


def _targets(statement: ast.stmt) -> tuple[list[ast.expr], ast.expr] | None:
    if isinstance(statement, ast.Assign):
        return statement.targets, statement.value
    if isinstance(statement, ast.AnnAssign) and statement.value is not None and statement.simple:
        return [statement.target], statement.value
    return None


def _bound(statement: ast.stmt) -> list[Constant]:
    """The integer constants one top-level statement binds."""
    parts = _targets(statement)
    if parts is None:
        return []
    targets, value = parts
    found = []
    for target in targets:
        for key, node in _pairs(target, value):
            number = literal_int(node)
            if number is not None:
                found.append(Constant(key, number))
    return found


def _pairs(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    """(key, value node) for each name a target binds to a literal element: `a = v`, `a, b = v, w`, and the
    elements of `shape = (v, w)`."""
    if isinstance(target, ast.Name) and isinstance(value, (ast.Tuple, ast.List)):
        return [(f"{target.id}[{i}]", element) for i, element in enumerate(value.elts)]
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if _unpacked(target, value):
        assert isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
        return [pair for t, v in zip(target.elts, value.elts) for pair in _pairs(t, v)]
    return []


def _unpacked(target: ast.expr, value: ast.expr) -> bool:
    """Whether `target = value` binds element by element (`a, b = v, w`)."""
    return (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts) and not any(isinstance(e, ast.Starred) for e in target.elts))


def _rewritten(statement: ast.stmt, values: Mapping[str, int]) -> ast.stmt:
    parts = _targets(statement)
    if parts is None:
        return statement
    targets, value = parts
    for target in targets:
        value = _replaced(target, value, values)
    if isinstance(statement, ast.Assign):
        return ast.copy_location(ast.Assign(targets=statement.targets, value=value), statement)
    assert isinstance(statement, ast.AnnAssign)
    rewritten = ast.AnnAssign(target=statement.target, annotation=statement.annotation, value=value,
                              simple=statement.simple)
    return ast.copy_location(rewritten, statement)


def _replaced(target: ast.expr, value: ast.expr, values: Mapping[str, int]) -> ast.expr:
    """`value` with each element `target` binds under a key of `values` replaced by the new literal."""
    if isinstance(target, ast.Name) and isinstance(value, (ast.Tuple, ast.List)):
        elements = [_swapped(e, f"{target.id}[{i}]", values) for i, e in enumerate(value.elts)]
        return ast.copy_location(type(value)(elts=elements, ctx=ast.Load()), value)
    if isinstance(target, ast.Name):
        return _swapped(value, target.id, values)
    if _unpacked(target, value):
        assert isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
        elements = [_replaced(t, v, values) for t, v in zip(target.elts, value.elts)]
        return ast.copy_location(type(value)(elts=elements, ctx=ast.Load()), value)
    return value


def _swapped(node: ast.expr, key: str, values: Mapping[str, int]) -> ast.expr:
    """The new literal for `key` in place of `node`, when `key` moves and `node` is a literal integer."""
    if key not in values or literal_int(node) is None:
        return node
    return ast.copy_location(ast.Constant(value=values[key]), node)
