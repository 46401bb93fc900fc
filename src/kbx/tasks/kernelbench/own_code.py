"""A KernelBench problem's own code as a `ModelNew` candidate: the oracle row of `kbx run --method reference`.

The problem file stays as it is but for one name: `class Model` becomes `class ModelNew`, and so does every other
reference to the name `Model` (`super(Model, self).__init__()`, a helper that builds one), so the class is the
same code under the name candidates define. The edit is made token by token on the names the syntax tree reads as
`Model`: strings, comments, an attribute named `Model` (`nn.Model`) and a keyword argument `Model=` stay as they are.
"""

from __future__ import annotations

import ast
import io
import tokenize

from kbx.syntax import parse
from kbx.tasks.kernelbench.problem import MODEL
from kbx.tasks.spec import ModuleInterface


def model_as_modelnew(source: str) -> str:
    """`source` with its class `Model` and every name that refers to it renamed `ModelNew`.

    Raises:
        SyntaxError: `source` does not parse (a problem kbx loaded always does).
    """
    tree = parse(source)
    names = {(n.lineno, n.col_offset) for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == MODEL}
    lines = io.StringIO(source).readlines()  # the lines tokenize reads (split at "\n" only)
    edits: list[tuple[int, int]] = []
    previous = ""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        row, col = token.start
        at = (row, len(token.line[:col].encode()))  # the tree's offsets count UTF-8 bytes
        if token.type == tokenize.NAME and token.string == MODEL and (previous == "class" or at in names):
            edits.append(token.start)
        if token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            previous = token.string
    for row, col in reversed(edits):  # from the end, so earlier positions stay valid
        line = lines[row - 1]
        lines[row - 1] = line[:col] + ModuleInterface.CLASS + line[col + len(MODEL):]
    return "".join(lines)
