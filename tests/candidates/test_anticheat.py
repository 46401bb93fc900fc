import ast
import subprocess
import sys

import pytest

from kbx.candidates.anticheat import find_violation


def violation(code: str, forbidden: tuple[str, ...] = ()):
    return find_violation(ast.parse(code), forbidden)


def lines(*source: str) -> str:
    return "\n".join(source)


@pytest.mark.parametrize(
    ("code", "rule"),
    [
        ("import torch as T\ns = T.cuda.Stream()", "forbidden_call"),
        ("from torch.cuda import Stream", "forbidden_call"),
        ("from os import environ", "forbidden_call"),
        ("import gc", "forbidden_import"),
        ("from multiprocessing import Pool", "forbidden_import"),
        ("import runpy", "forbidden_import"),
        ("import torch\nf = getattr(torch, 'mat' + 'mul')", "dynamic_code"),
        ("x = eval('1')", "dynamic_code"),
        ("import torch\nns = vars(torch)", "dynamic_code"),
        ("import torch\nf = torch.__dict__['relu']", "dynamic_code"),
        ("import triton\ntriton.jit = None", "patches_module"),
        ("import torch\ndel torch.relu", "patches_module"),
        ("import time as t\nsetattr(t, 'time', None)", "patches_module"),
        ("import torch\nflags = torch.backends.cuda.matmul\nflags.allow_tf32 = True", "patches_module"),
    ],
)
def test_rules_name_what_they_catch(code, rule):
    found = violation(code)
    assert found is not None and found.rule == rule and found.line >= 1 and found.reason


@pytest.mark.parametrize(
    "code",
    [
        "import torch\ny = torch.ops.aten.relu(x)",
        "import torch\nT = torch\ny = T.ops.aten.sum(x)",
        "import torch\nops = getattr(torch, 'ops')",
        "from torch import _C",
        "import torch._dynamo",
        "import torch\ny = torch._int_mm(a, b)",
        "import torch\n@torch.compile\ndef f(x):\n    return x + 1",
        "import torch\nf = torch.jit.script(g)",
        "import torch.fx",
        "import torch\ng = torch.cuda.CUDAGraph()",
        "import torch\nwith torch.cuda.graph(g):\n    pass",
        "import torch\nk = torch.cuda.jiterator._create_jit_fn('...')",
        "from torch.utils.cpp_extension import load_inline",
        "import sys\nsys.path.insert(0, '/')",
    ],
)
def test_torch_entry_points_that_make_kernels_are_forbidden(code):
    found = violation(code)
    assert found is not None and found.rule == "forbidden_call", found


@pytest.mark.parametrize(
    "code",
    [
        "import kbx",
        "from kbx.tasks.module import import_task",
        "from kbx.suite.Activation.relu.task import reference",
        "from task import reference",
        "def f(x):\n    return reference(x)",
        "class M(reference):\n    pass",
        "def f(task, x):\n    return task.reference(x)",
        "def f(m):\n    return hasattr(m, 'reference')",
        "def f(m, x):\n    return getattr(m, 'reference')(x)",
    ],
)
def test_reaching_the_reference_or_the_harness(code):
    found = violation(code)
    assert found is not None and found.rule == "uses_reference", found


def test_forbidden_names_match_case_and_underscore_blind():
    assert violation("import torch\nm = torch.nn.GELU()", ("gelu",)) is not None
    assert violation("def f(x):\n    return x.clamp_min_(0)", ("clampmin",)) is not None
    assert violation("def f(x):\n    return x.expand(3)", ("exp",)) is None


@pytest.mark.parametrize(
    "code",
    ["run = exec", "f = [eval][0]", "ns = locals()", "h = help", "def f(x):\n    return (compile,)"],
)
def test_dynamic_builtins_are_rejected_uncalled_too(code):
    found = violation(code)
    assert found is not None and found.rule == "dynamic_code", found


@pytest.mark.parametrize(
    "code",
    [
        "def f(g):\n    return g.__globals__['torch']",
        "def f(g):\n    return g.__code__",
        "def f(g):\n    return g.__closure__, g.__kwdefaults__",
        "x = ().__class__.__bases__[0].__subclasses__()",
        "def f(x):\n    return type(x).__mro__",
        "def f(o):\n    return o.__dict__",
        "def f(t):\n    return t.__reduce_ex__(2)",
        "b = print.__self__",
        "loader = __loader__",
        "def f(e):\n    return e.__traceback__.tb_frame.f_back.f_globals",
        "def g():\n    yield 1\nframe = g().gi_frame.f_locals",
        "def f(x):\n    x.__class__ = int",
        "def f(g, h):\n    g.__code__ = h.__code__",
        "def f(g):\n    g.__defaults__ = (1,)",
        "def f(x):\n    x.__anything__ = 1",
        "def f(x):\n    del x.__wrapped__",
        "def f(x):\n    setattr(x, '__class__', int)",
        "def f(g):\n    return getattr(g, '__globals__')",
        "import operator\ndef f(g):\n    return operator.attrgetter('__code__.co_consts')(g)",
        "import operator\ndef f(g, name):\n    return operator.attrgetter(name)(g)",
        "class Box:\n    pass\nb = Box()\nv = getattr(b, '__glo' + 'bals__')",
        "import operator\ndef f(g):\n    return operator.attrgetter('__co' + 'de__')(g)",
        "import operator\ndef f(g):\n    return list(map(operator.attrgetter, ['x']))",
        "import operator\nget = operator.attrgetter('x')",
        "import functools, operator\nget = functools.partial(operator.methodcaller, 'x')",
        "from operator import attrgetter as a\nfns = [a]",
        "def f(x, name):\n    setattr(x, name, 1)",
        "def f(g):\n    return object.__getattribute__(g, 'x')",
        "import time\ntype(time).__setattr__(time, 'perf_counter', None)",
        "__name__ = '__main__'",
        "for __name__ in ['__main__']:\n    pass",
        "import math as __loader__",
        "class C:\n    __annotations__ = {'x': int}",
        "class C:\n    def __reduce__(self):\n        return (int, ())",
    ],
)
def test_introspection_of_code_frames_and_classes(code):
    found = violation(code)
    assert found is not None and found.rule == "introspection", found


@pytest.mark.parametrize(
    "code",
    [
        "import torch\nclass T(torch.Tensor):\n    pass",
        "from torch import Tensor\nclass T(Tensor):\n    pass",
        lines("class M:", "    @classmethod", "    def __torch_function__(cls, func, types, args=(), kwargs=None):",
              "        return func(*args)"),
        "class M:\n    def __torch_dispatch__(self, func, types, args, kwargs):\n        return None",
        "def f(x, cls):\n    return x.as_subclass(cls)",
    ],
)
def test_tensor_subclasses_are_rejected(code):
    found = violation(code)
    assert found is not None and found.rule == "tensor_subclass", found


@pytest.mark.parametrize(
    "code",
    [
        lines("class K:", "    def __init__(self, n):", "        self.n = n", "    def __call__(self, x):",
              "        return x", "    def __repr__(self):", "        return 'K'"),
        "class Sub(Base):\n    def __init__(self):\n        super().__init__()",
        "if __name__ == '__main__':\n    print(__name__)",
        "import torch\nv = torch.__version__",
        "def f(x):\n    return type(x).__name__, x.__class__.__name__, x.__class__ is int",
        "__all__ = ['f']\n__version__ = '1.0'",
        "class P:\n    __slots__ = ('a',)",
        "def f(cfg, x):\n    return getattr(cfg, 'num_warps', 4), hasattr(x, 'is_cuda')",
        "import functools\n@functools.lru_cache(maxsize=None)\ndef f(n):\n    return n",
        "import functools\nimport operator\nn = functools.reduce(operator.mul, (2, 3), 1)",
        "from dataclasses import dataclass\n@dataclass(frozen=True)\nclass Cfg:\n    block: int = 128",
        "from enum import Enum\nclass Mode(Enum):\n    A = 1",
        '"""Mentions f.__globals__ and o.__dict__ in prose."""',
        "import sys\nsys.stdout.write('x')\nbig = sys.maxsize",
        "import warnings\nwarnings.warn('slow path')",
        "import time\nt0 = time.perf_counter()",
        "import random\nrandom.seed(0)",
        "from typing import Optional\ndef f(x: Optional[int] = None) -> int:\n    return 0",
        "import math\nn = math.prod((2, 3))",
        "import triton.language as tl\nload = tl._experimental_descriptor_load",
        "import torch\ndef f(x):\n    return x.float().contiguous(), torch.empty_like(x)",
    ],
)
def test_honest_dunders_and_helpers_pass(code):
    assert violation(code) is None


def test_ending_the_own_process_is_left_to_the_sandbox():
    assert violation("import os\nos._exit(0)") is None


@pytest.mark.parametrize(
    "code",
    [
        "g = getattr\ndef f(x):\n    return g(x, '__glo' + 'bals__')",
        "import functools\ndef f(x):\n    return functools.partial(getattr, x)('__co' + 'de__')",
    ],
)
def test_attribute_builtins_passed_around_are_rejected(code):
    found = violation(code)
    assert found is not None and found.rule == "introspection", found


def test_the_static_stage_imports_no_torch():
    code = (
        "import ast, sys; from kbx.candidates.anticheat import find_violation; "
        "v = find_violation(ast.parse('import torch, triton\\nm = torch.importlib.import_module')); "
        "assert v is not None and v.rule == 'forbidden_import', v; "
        "assert 'torch' not in sys.modules and 'triton' not in sys.modules"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
