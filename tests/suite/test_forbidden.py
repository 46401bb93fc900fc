"""Every task forbids the torch operations that would do its core work, and its own reference trips that list:
a candidate that simply returns what the reference computes is rejected before it runs."""

from __future__ import annotations

import ast

import pytest

from kbx.candidates.anticheat import violations
from kbx.tasks.registry import default_suite_root, load_suite
from kbx.tasks.spec import Task

TASKS = load_suite(default_suite_root())


def as_candidate(task: Task) -> ast.Module:
    """task.py as if a candidate had copied it: its imports (less the harness's) and its functions."""
    tree = ast.parse(task.task_file.read_text())
    keep = [
        node
        for node in tree.body
        if isinstance(node, (ast.Import, ast.FunctionDef))
        or (isinstance(node, ast.ImportFrom) and not (node.module or "").startswith("kbx"))
    ]
    return ast.Module(body=[n for n in keep if getattr(n, "name", "") != "make_inputs"], type_ignores=[])


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_the_reference_itself_is_a_forbidden_fallback(task):
    assert task.forbidden, f"{task.name} declares no forbidden operations"
    rules = {v.rule for v in violations(as_candidate(task), task.forbidden)}
    assert "torch_fallback" in rules, f"{task.name}'s reference does not trip its own forbidden list"
