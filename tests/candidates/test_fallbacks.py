"""Static rules against computing the result some other way than the candidate's own kernels
(kbx.candidates.fallbacks): a fallback path that swallows the kernel's failure, and the task's core operation done
by torch, numpy or `operator`."""

from __future__ import annotations

import pytest

from tests.candidates.test_anticheat import lines, violation

KERNEL = """
import torch
import triton
import triton.language as tl

@triton.jit
def _k(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    acc = tl.sum(x, axis=0) + x.sum(0) + tl.max(x, 0) + x.max(0) + tl.dot(x, x) + tl.softmax(x)
    y = tl.where(x < 0, 0, x) + tl.maximum(x, 0) + tl.math.erf(x) + x.exp() + tl.exp(x)
    tl.store(y_ptr + offs, (acc + y).to(y_ptr.dtype.element_ty))
"""
"""An honest kernel using Triton functions and methods that share names with forbidden torch operations."""

EVERYTHING = ("relu", "sum", "max", "dot", "softmax", "where", "maximum", "erf", "exp", "matmul", "@")


@pytest.mark.parametrize(
    "code",
    [
        "def f(x):\n    try:\n        return k(x)\n    except Exception:\n        return x * 2",
        "def f(x):\n    try:\n        return k(x)\n    except:\n        pass",
        "def f(x):\n    try:\n        k(x)\n    except ValueError:\n        if x:\n            return x\n        raise",
        lines("def f(x):", "    for i in x:", "        try:", "            k(i)", "        except E:",
              "            continue", "            raise"),
        "def f(x):\n    try:\n        k(x)\n    except* ValueError:\n        return x",
        "def f(x):\n    try:\n        return k(x)\n    finally:\n        return x",
        "import contextlib\ndef f(x):\n    with contextlib.suppress(Exception):\n        return k(x)\n    return x",
        "from contextlib import suppress as s\ndef f(x):\n    with s(RuntimeError):\n        return k(x)\n    return x",
        "class Quiet:\n    def __exit__(self, *exc):\n        return True",
        lines("class C:", "    def f(self, x):", "        try:", "            return k(x)",
              "        except Exception:", "            return x"),
    ],
)
def test_fallback_paths_that_swallow_errors(code):
    found = violation(code)
    assert found is not None and found.rule == "try_fallback", found


@pytest.mark.parametrize(
    ("code", "forbidden"),
    [
        ("import torch\ndef f(x):\n    return torch.relu(x)", ("relu",)),
        ("import torch\ndef f(x):\n    return torch.nn.functional.relu(x)", ("relu",)),
        ("import torch.nn.functional as F\ndef f(x):\n    return F.relu(x)", ("relu",)),
        ("from torch.nn import functional as F\ndef f(x):\n    return F.gelu(x)", ("gelu",)),
        ("from torch.nn.functional import relu as r\ndef f(x):\n    return r(x)", ("relu",)),
        ("import torch\nF = torch.nn.functional\ndef f(x):\n    return F.relu(x)", ("relu",)),
        ("import torch\nop = torch.relu", ("relu",)),
        ("import torch\ndef f(x):\n    return getattr(torch, 'relu')(x)", ("relu",)),
        ("def f(x):\n    return x.relu()", ("relu",)),
        ("def f(x):\n    return x.relu_()", ("relu",)),
        ("def f(x):\n    return getattr(x, 'relu')()", ("relu",)),
        ("import torch\ndef f(x):\n    return torch.Tensor.relu(x)", ("relu",)),
        ("def f(x):\n    return type(x).erf(x)", ("erf",)),
        ("import torch\ndef f(x):\n    return torch.special.erf(x)", ("erf",)),
        ("import torch\ndef f(a, b):\n    return torch.linalg.matmul(a, b)", ("matmul",)),
        ("import torch\ndef f(x):\n    return torch.nn.ReLU()(x)", ("relu",)),
        ("import torch\ndef f(x):\n    return torch.relu.__call__(x)", ("relu",)),
        ("import torch\ndef f(x, n):\n    return torch.nn.LayerNorm(n)(x)", ("layer_norm",)),
        ("def f(a, b):\n    return a @ b", ("@",)),
        ("def f(a, b):\n    a @= b\n    return a", ("@",)),
        ("def f(a, b):\n    return a.__matmul__(b)", ("matmul",)),
        ("import operator\ndef f(a, b):\n    return operator.matmul(a, b)", ("matmul",)),
        ("import numpy as np\ndef f(x):\n    return np.sum(x.numpy())", ("sum",)),
        ("from torch import *", ()),
        ("import torch\ndef f(x):\n    for F in [torch.nn.functional]:\n        return F.softmax(x, -1)", ("softmax",)),
    ],
)
def test_torch_fallback_for_the_core_operation(code, forbidden):
    found = violation(code, forbidden)
    assert found is not None and found.rule == "torch_fallback", found
    assert found.reason.endswith("computed by the candidate's own kernels") or "star import" in found.reason


@pytest.mark.parametrize(
    "code",
    [
        KERNEL,
        KERNEL.replace("@triton.jit", "@triton.autotune(configs=[], key=[])\n@triton.jit"),
        lines("import triton.language as tl", "from triton.language.extra import libdevice",
              "f = (tl.sum, tl.dot, libdevice.erf)"),
        "from triton.language import sum as tsum, dot\nf = (tsum, dot)",
        "import math\ndef f(x):\n    return math.erf(0.5) * math.exp(1.0)",
        "import torch\ndef f(x):\n    return torch.finfo(x.dtype).max, torch.iinfo(torch.int32).max",
        "def f(shape, n):\n    return max(1, min(n, 4)), sum(shape)",
        "import torch\ndef f():\n    return torch.backends.cuda.matmul.allow_tf32",
        lines("import torch", "def f(x):", "    y = x.contiguous().reshape(-1)",
              "    return torch.empty_like(y), y.stride(0), y.movedim(0, -1)"),
    ],
)
def test_honest_kernels_and_wrappers_never_trip_torch_fallback(code):
    assert violation(code, EVERYTHING) is None


@pytest.mark.parametrize(
    ("code", "forbidden"),
    [
        ("import torch\ndef f(x):\n    return x.dtype == torch.bool, torch.float32, torch.long",
         ("bool", "float", "long")),
        ("import functools\nimport operator\ndef f(x):\n    return functools.reduce(operator.mul, x.shape, 1)",
         ("mul",)),
        ("from operator import mul, add\ndef f(shape):\n    return mul(shape[0], shape[1]) + add(1, 2)",
         ("mul", "add")),
    ],
)
def test_a_dtype_named_like_an_operation_and_infix_operators_as_functions_are_no_fallback(code, forbidden):
    assert violation(code, forbidden) is None  # count_nonzero (forbids bool) and mul_add_relu, 2026-11-28


@pytest.mark.parametrize(
    "code",
    [
        "import math\nimport torch\ny = torch.empty(3)\nz = math.sqrt(2.0)",
        "class Box:\n    pass\nb = Box()\nb.value = 1\nv = getattr(b, 'value')",
        "import torch\nx = torch.empty(3)\nx.data = x",
        "import os\npid = os.getpid()",
        "import torch\nprint(torch.__version__)",
    ],
)
def test_honest_constructs_pass(code):
    assert violation(code) is None


def test_without_a_forbidden_list_torch_operations_are_not_judged():
    assert violation("import torch\ndef f(x):\n    return torch.relu(x), x.softmax(-1), x @ x") is None


@pytest.mark.parametrize(
    "code",
    [
        "try:\n    import typing_extensions\nexcept ImportError:\n    typing_extensions = None",
        "def lib():\n    try:\n        from triton.language.extra.cuda import libdevice\n    except ImportError:\n"
        "        from triton.language.extra import libdevice\n    return libdevice",
        lines("def f(x):", "    try:", "        return k(x)", "    except ValueError as e:",
              "        raise RuntimeError('bad shape') from e"),
        lines("def f(x):", "    try:", "        return k(x)", "    except ValueError:", "        for i in x:",
              "            break", "        raise"),
        "def f(x):\n    try:\n        return k(x)\n    finally:\n        cleanup()",
        "class Timer:\n    def __exit__(self, *exc):\n        return None",
    ],
)
def test_honest_error_handling_passes(code):
    assert violation(code) is None
