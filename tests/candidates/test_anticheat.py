import ast

import pytest

from kbx.candidates.anticheat import find_violation


def violation(code: str):
    return find_violation(ast.parse(code))


@pytest.mark.parametrize(
    ("code", "rule"),
    [
        ("import torch as T\ns = T.cuda.Stream()", "forbidden_call"),
        ("from torch.cuda import Stream", "forbidden_call"),
        ("from os import environ", "forbidden_call"),
        ("import gc", "forbidden_import"),
        ("from multiprocessing import Pool", "forbidden_import"),
        ("import torch\nf = getattr(torch, 'mat' + 'mul')", "dynamic_code"),
        ("x = eval('1')", "dynamic_code"),
        ("import triton\ntriton.jit = None", "patches_module"),
        ("import torch\ndel torch.relu", "patches_module"),
        ("import time as t\nsetattr(t, 'time', None)", "patches_module"),
    ],
)
def test_rules_name_what_they_catch(code, rule):
    found = violation(code)
    assert found is not None and found.rule == rule and found.line >= 1 and found.reason


@pytest.mark.parametrize(
    "code",
    [
        "import math\nimport torch\ny = torch.empty(3)\nz = math.sqrt(2.0)",
        "class Box:\n    pass\nb = Box()\nb.value = 1\nv = getattr(b, 'val' + 'ue')",
        "import torch\nx = torch.empty(3)\nx.data = x",
        "import os\npid = os.getpid()",
    ],
)
def test_honest_constructs_pass(code):
    assert violation(code) is None
