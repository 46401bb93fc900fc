"""Mutation scan: small, plausible bugs planted in the suite's own solutions, each judged like a candidate.

A mutant that PASSES is a hole in the task's workloads or contract (or an equivalent mutant: read it). The operators
each plant one bug of a class the suite claims to catch (issue 20):

- `first_block`: a loop inside a `@triton.jit` function runs its first iteration only (`range(a, b, s)` becomes
  `range(a, a + s, s)`, `range(b)` becomes `range(1)`): a kernel that never reaches the last block of a long row,
  the carry of a scan, the tail of a grid-stride loop.
- `tail_short`: a comparison `x < n` in a jitted function becomes `x < n - 1`: a mask or bound that drops the
  last element.
- `narrow`: `x.to(tl.float32)` in a jitted function becomes `x.to(tl.float16)`: values computed in half
  precision. (An accumulator initialised in fp16 is no mutant in the interpreter: adding fp32 promotes it.)
- `masked_other`: a masked load's `other=c` becomes `other=c + 1` (`other=-inf` becomes `other=0`): the lanes
  past a tail enter a sum, a maximum or a product.
- `eps_fixed`: a jitted function's `eps` argument is read as 1e-5 wherever it is used: an epsilon ignored.

    PYTHONPATH=src python3 scripts/mutants.py [--tasks softmax cumsum ...] [--category Reduce] [--ops first_block]
        [--limit 3] [--out mutants.jsonl]

The mutants run through the CPU evaluator (confined, the interpreter), as `kbx run` would judge them; only check
and smoke workloads run here, so a mutant that only bench sizes expose survives (say so when reading the report).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from kbx.candidates.source import Candidate
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.registry import load_suite, select
from kbx.tasks.spec import Task


@dataclass(frozen=True)
class Mutant:
    """One planted bug: the operator, where (line), and the mutated source."""

    op: str
    line: int
    source: str


def _jitted(tree: ast.Module) -> list[ast.FunctionDef]:
    """The module's functions decorated with `jit` (`@triton.jit`, `@jit`, `@triton.jit(...)`)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for deco in node.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if name == "jit":
                    found.append(node)
    return found


def _first_block(node: ast.AST) -> bool:
    """Rewrite a `for ... in range(...)` / `tl.range(...)` loop to its first iteration; whether it was one."""
    if not (isinstance(node, ast.For) and isinstance(node.iter, ast.Call)):
        return False
    call = node.iter
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    if name not in ("range", "static_range") or not call.args:
        return False
    if len(call.args) == 1:
        call.args = [ast.Constant(1)]
    else:
        start = call.args[0]
        step = call.args[2] if len(call.args) > 2 else ast.Constant(1)
        call.args = [start, ast.BinOp(start, ast.Add(), step), *call.args[2:]]
    return True


def _tail_short(node: ast.AST) -> bool:
    """Rewrite `x < n` (one comparison) to `x < n - 1`; whether it was one."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Lt)):
        return False
    node.comparators = [ast.BinOp(node.comparators[0], ast.Sub(), ast.Constant(1))]
    return True


def _narrow(node: ast.AST) -> bool:
    """Rewrite `x.to(tl.float32)` to `x.to(tl.float16)`; whether it was one."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "to"
            and node.args and isinstance(node.args[0], ast.Attribute) and node.args[0].attr == "float32"):
        return False
    node.args[0].attr = "float16"
    return True


def _masked_other(node: ast.AST) -> bool:
    """Rewrite a load's `other=c` to `other=c + 1`, or `other=float("-inf")` to `other=0.0`; whether it was one."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load"):
        return False
    for keyword in node.keywords:
        if keyword.arg != "other":
            continue
        text = ast.unparse(keyword.value)
        keyword.value = ast.Constant(0.0) if "inf" in text else ast.BinOp(keyword.value, ast.Add(), ast.Constant(1))
        return True
    return False


def _eps_fixed(node: ast.AST) -> bool:
    """Rewrite the first statement of a jitted function that has an `eps` argument to `eps = 1e-05`; whether it
    was one."""
    if not (isinstance(node, ast.FunctionDef) and any(a.arg == "eps" for a in node.args.args)):
        return False
    node.body.insert(0, ast.Assign([ast.Name("eps", ast.Store())], ast.Constant(1e-05)))
    return True


OPERATORS: dict[str, Callable[[ast.AST], bool]] = {
    "first_block": _first_block,
    "tail_short": _tail_short,
    "narrow": _narrow,
    "masked_other": _masked_other,
    "eps_fixed": _eps_fixed,
}


def mutants(source: str, ops: list[str], limit: int) -> Iterator[Mutant]:
    """Up to `limit` mutants per operator, each with one site rewritten inside a jitted function."""
    count = sum(1 for fn in _jitted(ast.parse(source)) for _ in ast.walk(fn))
    for op in ops:
        made = 0
        for index in range(count):
            if made >= limit:
                break
            tree = ast.parse(source)  # a fresh tree per mutant: one site each
            node = [n for fn in _jitted(tree) for n in ast.walk(fn)][index]
            if OPERATORS[op](node):
                made += 1
                yield Mutant(op, getattr(node, "lineno", 0), ast.unparse(ast.fix_missing_locations(tree)))


def scan(tasks: list[Task], ops: list[str], limit: int, out: Path) -> list[dict[str, object]]:
    """Judge every mutant of every task's solution; one JSON line each in `out`, the survivors returned."""
    survivors = []
    with Evaluator("cpu", Limits(timeout_s=300)) as evaluator, out.open("w") as sink:
        for task in tasks:
            source = task.solution_file.read_text()
            for mutant in mutants(source, ops, limit):
                start = time.perf_counter()
                name = f"{task.name}/{mutant.op}@{mutant.line}"
                evaluation = evaluator.evaluate(task, Candidate(name, task.name, mutant.source))
                row = {"task": task.name, "op": mutant.op, "line": mutant.line,
                       "status": evaluation.status.value, "message": (evaluation.message or "")[:200],
                       "seconds": round(time.perf_counter() - start, 1)}
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                mark = "SURVIVED" if row["status"] == "PASSED" else "killed  "
                print(f"{mark} {name:48s} {row['status']:22s} {row['seconds']}s {row['message'][:90]}", flush=True)
                if row["status"] == "PASSED":
                    survivors.append(row)
    return survivors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", nargs="*", default=[])
    parser.add_argument("--category", default=None)
    parser.add_argument("--ops", nargs="+", default=list(OPERATORS), choices=list(OPERATORS))
    parser.add_argument("--limit", type=int, default=2, help="mutants per operator and task")
    parser.add_argument("--out", default="mutants.jsonl")
    args = parser.parse_args()
    tasks = [t for t in select(load_suite(), args.tasks) if args.category in (None, t.category)]
    survivors = scan(tasks, args.ops, args.limit, Path(args.out))
    print(f"# {len(survivors)} mutants survived")
    for row in survivors:
        print(f"#   {row['task']} {row['op']}@{row['line']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
