import ast

import pytest

from kbx.candidates.names import Names, literal_string, real_name


def names(code: str) -> Names:
    return Names(ast.parse(code))


def expr(code: str) -> ast.expr:
    return ast.parse(code, mode="eval").body


@pytest.mark.parametrize(
    ("code", "expression", "dotted"),
    [
        ("import torch", "torch.nn.functional.relu", "torch.nn.functional.relu"),
        ("import torch.nn.functional as F", "F.gelu", "torch.nn.functional.gelu"),
        ("from torch.nn import functional as F", "F.gelu", "torch.nn.functional.gelu"),
        ("from torch import relu as r", "r", "torch.relu"),
        ("import torch\nF = torch.nn.functional", "F.relu", "torch.nn.functional.relu"),
        ("import torch\nG = torch.nn\nF = G.functional", "F.relu", "torch.nn.functional.relu"),
        ("import torch\nop = getattr(torch, 'relu')", "op", "torch.relu"),
        ("import torch", "getattr(torch.nn, 'functional').relu", "torch.nn.functional.relu"),
        ("import torch\na, b = torch.relu, torch.erf", "b", "torch.erf"),
        ("import torch\nimport operator", "operator.attrgetter('nn.functional.relu')(torch)",
         "torch.nn.functional.relu"),
        ("import os\nfrom operator import methodcaller as m", "m('system', 'id')(os)", "os.system"),
        ("import torch", "getattr(torch, '_' + 'C')", "torch._C"),
        ("import torch\nimport operator", "operator.attrgetter(f'_C')(torch)", "torch._C"),
    ],
)
def test_resolves_imports_assignments_and_literal_getattr(code, expression, dotted):
    assert names(code).resolve(expr(expression)) == dotted


@pytest.mark.parametrize("expression", ["x.relu", "torch.empty(3).sum", "getattr(torch, name)"])
def test_values_and_computed_names_do_not_resolve(expression):
    assert names("import torch\nx = torch.empty(3)").resolve(expr(expression)) is None


def test_imports_win_over_later_assignments():
    assert names("import math as F\nimport torch\nF = torch.nn.functional").resolve(expr("F.erf")) == "math.erf"


@pytest.mark.parametrize(
    ("header", "decorator"),
    [
        ("import triton", "@triton.jit"),
        ("import triton as tr", "@tr.jit(do_not_specialize=['n'])"),
        ("from triton import jit", "@jit"),
        ("from triton import jit as J", "@J"),
    ],
)
def test_kernels_are_functions_decorated_with_triton_jit(header, decorator):
    found = names(f"{header}\n{decorator}\ndef k(x):\n    y = x.sum(0)\n\ndef host(x):\n    return x.sum(0)\n")
    assert [k.name for k in found.kernels] == ["k"]
    sums = [n for n in ast.walk(found.tree) if isinstance(n, ast.Attribute) and n.attr == "sum"]
    assert sorted(found.in_kernel(n) for n in sums) == [False, True]


def test_a_jit_decorator_that_is_not_triton_is_no_kernel():
    assert names("jit = lambda f: f\n@jit\ndef k(x):\n    pass").kernels == ()


@pytest.mark.parametrize(
    ("dotted", "real"),
    [
        ("torch.importlib.import_module", "importlib.import_module"),
        ("torch.os.sys.modules", "sys.modules"),
        ("os.path.join", "posixpath.join"),
        ("enum.bltns.exec", "builtins.exec"),
        ("triton.testing.subprocess.run", "subprocess.run"),
        ("torch.nn.functional.relu", "torch.nn.functional.relu"),
        ("triton.language.extra.libdevice.erf", "triton.language.extra.libdevice.erf"),
        ("functools.partial", "functools.partial"),
    ],
)
def test_real_name_follows_modules_that_other_modules_import(dotted, real):
    assert real_name(dotted, ("torch", "triton", "os", "sys", "enum", "functools", "posixpath", "ntpath")) == real


def test_real_name_looks_only_into_followed_modules():
    assert real_name("torch.importlib.import_module", ("triton",)) == "torch.importlib.import_module"
    assert real_name("os.sys.modules", ("os",)) == "sys.modules"
    assert real_name("not_a_module.x", ("not_a_module",)) == "not_a_module.x"


@pytest.mark.parametrize(
    ("expression", "value"),
    [("'a'", "a"), ("'_' + 'C'", "_C"), ("f'x' 'y'", "xy"), ("'a' + b", None), ("f'{b}'", None), ("1 + 2", None)],
)
def test_literal_strings_fold_constants_only(expression, value):
    assert literal_string(expr(expression)) == value
