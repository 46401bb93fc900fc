"""Every parse in the package goes through `kbx.syntax.parse` (one lock: CPython 3.11's AST constructor is not
safe across threads, and kbx parses candidates on several)."""

import ast
from pathlib import Path

import pytest

import kbx
from kbx.syntax import parse

PACKAGE = Path(kbx.__file__).parent


def test_parse_is_ast_parse():
    tree = parse("def relu(input):\n    return input\n", filename="c.py")
    assert isinstance(tree, ast.Module) and tree.body[0].name == "relu"
    with pytest.raises(SyntaxError):
        parse("def relu(:\n")


def test_no_module_of_the_harness_parses_on_its_own():
    """Task and solution files are the suite's own code, run by the harness one at a time; they are left out."""
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "suite" not in path.relative_to(PACKAGE).parts and path.name != "syntax.py"
        and "ast.parse(" in path.read_text()
    ]
    assert offenders == []
