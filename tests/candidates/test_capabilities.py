"""The policy tables behind the static rules: the import allow-list, modules named for their trick, dangerous
names inside allowed modules, and modules reached through other modules' attributes."""

import pytest

from kbx.candidates.capabilities import ALLOWED_MODULES, FORBIDDEN_MODULES, reached_name
from tests.candidates.test_anticheat import lines, violation


@pytest.mark.parametrize(
    "code",
    [
        "import numpy as np",
        "import types",
        "import weakref",
        "import contextlib",
        "import zipfile",
        "import triton_helpers",
        "from . import helpers",
        "def f():\n    import tempfile\n    return tempfile",
    ],
)
def test_imports_off_the_allow_list_are_rejected(code):
    found = violation(code)
    assert found is not None and found.rule == "import_not_allowed", found
    assert "allow-list" in found.reason


@pytest.mark.parametrize(
    "module", ["pkgutil", "pydoc", "code", "codeop", "zipimport", "copyreg", "__main__"]
)
def test_modules_found_by_the_red_team_name_their_trick(module):
    for code in (f"import {module}", f"from {module} import x"):
        found = violation(code)
        assert found is not None and found.rule == "forbidden_import", found
        assert "allow-list" not in found.reason


def test_the_allow_list_admits_what_kernels_import():
    allowed = "\n".join(f"import {m}" for m in ALLOWED_MODULES if m != "__future__")
    typical = lines(
        "from __future__ import annotations",
        "from typing import Optional, Tuple",
        "from collections.abc import Sequence",
        "from dataclasses import dataclass",
        "from functools import lru_cache, partial, reduce",
        "import torch.nn.functional as F",
        "from triton.runtime import driver",
        "from triton.language.extra import libdevice",
        "import os.path",
        "p = os.path.join('a', 'b')",
    )
    assert violation(typical + "\n" + allowed) is None
    assert not set(ALLOWED_MODULES) & set(FORBIDDEN_MODULES)


@pytest.mark.parametrize(
    "code",
    [
        "import sys\nframes = sys._current_frames()",
        "from sys import _getframe",
        "import sys\nsys.settrace(print)",
        "import sys\nsys.meta_path.insert(0, finder)",
        "import warnings\nwarnings._setoption('ignore::kbx.X')",
        "import typing\nhints = typing.get_type_hints(f)",
        "from typing import ForwardRef",
        "from functools import singledispatch",
        "import os\nos.execvp('sh', ['sh'])",
        "import os\nos.posix_spawn('/bin/sh', [], {})",
        "from triton.runtime.build import compile_module_from_src",
        "import triton\ntriton.knobs.nvidia.ptxas = 'sh'",
        "import triton\nx = triton._C",
        "import torch.multiprocessing as mp",
        "import torch\nt = torch.utils.benchmark.Timer(stmt='x')",
        "import torch\nobj = torch.serialization.load(f, weights_only=False)",
    ],
)
def test_dangerous_names_in_allowed_modules_are_forbidden(code):
    found = violation(code)
    assert found is not None and found.rule == "forbidden_call", found


@pytest.mark.parametrize(
    ("code", "rule", "reached"),
    [
        ("import torch\nm = torch.importlib.import_module('kbx')", "forbidden_import", "importlib"),
        ("from torch import ctypes", "forbidden_import", "ctypes"),
        ("import dataclasses\nf = dataclasses.inspect.currentframe()", "forbidden_import", "inspect"),
        ("import triton.testing\ntriton.testing.subprocess.run(['sh'])", "forbidden_import", "subprocess"),
        ("import os\nm = os.sys.modules", "forbidden_call", "sys.modules"),
        ("import torch\nS = torch.os.sys\nf = S._getframe", "forbidden_call", "sys._getframe"),
        ("import enum\nrun = enum.bltns.exec", "import_not_allowed", "builtins"),
        ("import typing\nt = typing.types.FunctionType", "import_not_allowed", "types"),
    ],
)
def test_modules_reached_through_other_modules_are_judged_as_themselves(code, rule, reached):
    found = violation(code)
    assert found is not None and found.rule == rule, found
    assert f"{reached}" in found.reason and " through " in found.reason


@pytest.mark.parametrize(
    "dotted",
    ["torch.nn.functional.relu", "triton.language.extra.libdevice.erf", "torch.backends.cuda.matmul.allow_tf32",
     "torch.cuda.Stream", "collections.abc.Sequence", "math.pi"],
)
def test_names_that_stay_in_their_own_package_are_unchanged(dotted):
    assert reached_name(dotted) == dotted


@pytest.mark.parametrize(
    "code",
    [
        "from triton.tools.tensor_descriptor import TensorDescriptor\nd = TensorDescriptor.from_tensor(x, [64])",
        "import triton.tools.tensor_descriptor as td\nd = td.TensorDescriptor(x, x.shape, x.stride(), [64])",
    ],
)
def test_host_tensor_descriptors_are_allowed(code):
    # a plain dataclass Triton's tutorials pass to kernels; the rest of triton.tools compiles C and stays forbidden
    assert violation(code) is None


@pytest.mark.parametrize(
    "code",
    [
        "import triton.tools.tensor_descriptor as td\nf = td.validate_block_shape",
        "from triton.tools.compile import main",
        "import triton.tools.link",
    ],
)
def test_the_rest_of_triton_tools_stays_forbidden(code):
    found = violation(code)
    assert found is not None and found.rule == "forbidden_call", found
