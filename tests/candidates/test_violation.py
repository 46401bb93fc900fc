"""What a static rule reports: the rule, the line and why, in one line."""

from __future__ import annotations

import ast
import dataclasses

import pytest

from kbx.candidates.violation import FUNCTION_NODES, Violation


def test_a_violation_reads_as_rule_line_and_reason():
    assert Violation("try_fallback", 7, "catches everything").message() == "try_fallback (line 7): catches everything"


def test_a_violation_is_immutable():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Violation("r", 1, "x").line = 2


def test_function_nodes_are_every_kind_of_def():
    tree = ast.parse("def f(): pass\nasync def g(): pass\nclass C: pass\nh = lambda: 0")
    assert [n.name for n in ast.walk(tree) if isinstance(n, FUNCTION_NODES)] == ["f", "g"]
