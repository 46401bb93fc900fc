"""`scripts/mutants.py` plants one bug per mutant, inside jitted functions only, each a source that still parses."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "mutants.py"

SOURCE = '''
import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)


def host(x, n):
    for i in range(n):
        assert i < n
    return x.to(torch.float32)
'''


def _script():
    spec = importlib.util.spec_from_file_location("mutants", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutants", module)  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def test_each_operator_rewrites_one_site_of_the_jitted_function_and_nothing_on_the_host():
    mutants = _script().mutants(SOURCE, ["first_block", "tail_short", "narrow"], limit=5)
    found = {(m.op, m.line): m.source for m in mutants}
    assert set(found) == {("first_block", 9), ("tail_short", 11), ("narrow", 11)}
    assert "range(0, 0 + BLOCK, BLOCK)" in found[("first_block", 9)]
    assert "offs < n - 1" in found[("tail_short", 11)]
    assert ".to(tl.float16)" in found[("narrow", 11)]
    for source in found.values():
        ast.parse(source)
        assert "for i in range(n):" in source and "assert i < n" in source and "torch.float32" in source


def test_a_masked_loads_other_and_an_eps_argument_are_planted():
    source = SOURCE.replace("def kernel(x_ptr, n, BLOCK", "def kernel(x_ptr, n, eps, BLOCK")
    mutants = {m.op: m.source for m in _script().mutants(source, ["masked_other", "eps_fixed"], limit=5)}
    assert "other=0.0 + 1" in mutants["masked_other"]
    assert "eps = 1e-05" in mutants["eps_fixed"].split("def kernel")[1].split("acc =")[0]
    assert list(_script().mutants(SOURCE, ["eps_fixed"], limit=5)) == []  # no eps argument: nothing planted


def test_the_limit_caps_mutants_per_operator():
    source = SOURCE.replace("mask=offs < n,", "mask=(offs < n) & (offs < n),")
    assert len(list(_script().mutants(source, ["tail_short"], limit=1))) == 1
    assert len(list(_script().mutants(source, ["tail_short"], limit=5))) == 2
