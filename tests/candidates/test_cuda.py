"""The CUDA backend's static stage (kbx.candidates.cuda): the `load_inline` form it allows, what it reads from it,
and what it refuses in the call. Its rules over the flags and the C++/CUDA sources: test_native_flags.py,
test_native_rules.py, which judge candidates made with this file's helpers."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from kbx.candidates.static import check_static
from kbx.status import Status

FIXTURES = Path(__file__).parent.parent / "fixtures" / "cuda"

KERNEL = r'''
__global__ void relu_kernel(const float* x, float* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] < 0.f ? 0.f : x[i];
}
torch::Tensor relu_forward(torch::Tensor x) {
    auto y = torch::empty_like(x);
    relu_kernel<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
    return y;
}
'''


def candidate(kernel: str = KERNEL, call: str = "", head: str = "", body: str = "return ext.relu_forward(input)",
              imports: str = "from torch.utils.cpp_extension import load_inline", loader: str = "load_inline") -> str:
    return f'''
import torch
{imports}
{head}
SRC = r"""{kernel}"""
ext = {loader}(name="relu_ext", cpp_sources="torch::Tensor relu_forward(torch::Tensor x);", cuda_sources=SRC,
                functions=["relu_forward"]{call})


def relu(input):
    {body}
'''


@functools.cache
def relu_task():
    from kbx.tasks.meta import read_task
    from kbx.tasks.registry import default_suite_root

    return read_task(default_suite_root() / "Activation" / "relu")


def judge(code: str):
    task = relu_task()
    return check_static(code, "relu", task.signature, None, task.forbidden)


def test_the_example_candidates_pass_and_are_read_as_cuda():
    for name in ("relu", "relu_raw"):
        verdict = judge((FIXTURES / f"{name}.py").read_text())
        assert verdict.status is None, verdict.message
        assert verdict.backend == "cuda" and len(verdict.extensions) == 1


def test_the_build_is_read_from_the_call_and_module_constants():
    (build,) = judge(candidate(call=', extra_cuda_cflags=["-O3", "--use_fast_math"], verbose=True')).extensions
    assert build.name == "relu_ext" and build.functions == ("relu_forward",)
    assert build.cuda_sources == (KERNEL,) and build.extra_cuda_cflags == ("-O3", "--use_fast_math")


def test_sources_joined_from_module_constants_are_read_as_they_evaluate():
    code = candidate(head='HEADER = "#include <torch/extension.h>\\n"\nBLOCK = 256').replace(
        'SRC = r"""', 'BODY = r"""').replace(
        "ext = load_inline", 'SRC = f"#define BLOCK {BLOCK}\\n" + HEADER + BODY\next = load_inline')
    verdict = judge(code)
    assert verdict.status is None, verdict.message
    (build,) = verdict.extensions
    assert build.cuda_sources == ("#define BLOCK 256\n#include <torch/extension.h>\n" + KERNEL,)
    refused = [code.replace("{BLOCK}", "{BLOCK:04d}"), code.replace("{BLOCK}", "{BLOCK!r}"),
               code.replace("BLOCK = 256", "BLOCK = len('x')"), code.replace("+ HEADER", "+ 3")]
    for variant in refused:
        assert judge(variant).check == "anticheat.native_form"


def test_a_triton_candidate_stays_triton(suite):
    task = suite["relu"]
    verdict = check_static((task.path / "solution.py").read_text(), "relu", task.signature, None, task.forbidden)
    assert verdict.status is None and verdict.backend == "triton" and verdict.extensions == ()


@pytest.mark.parametrize("imports, loader", [
    ("import torch.utils.cpp_extension", "torch.utils.cpp_extension.load_inline"),
    ("import torch.utils.cpp_extension as cx", "cx.load_inline"),
    ("from torch.utils import cpp_extension", "cpp_extension.load_inline"),
    ("from torch.utils.cpp_extension import load_inline as build", "build"),
])
def test_every_way_of_naming_load_inline_is_read(imports, loader):
    verdict = judge(candidate(imports=imports, loader=loader))
    assert verdict.status is None, verdict.message
    assert verdict.extensions[0].name == "relu_ext"


def test_an_extension_function_named_like_the_operation_is_the_candidates_own():
    code = candidate().replace('functions=["relu_forward"]', 'functions=["relu"]').replace(
        "relu_forward(torch::Tensor x)", "relu(torch::Tensor x)").replace("ext.relu_forward(", "ext.relu(")
    assert judge(code).status is None
    fallback = judge(code.replace("return ext.relu(input)", "return input.relu()"))
    assert fallback.check == "anticheat.torch_fallback"


def test_the_python_rules_still_hold_around_the_extension():
    assert judge(candidate(head="import ctypes")).check == "anticheat.forbidden_import"
    assert judge(candidate(body="return torch.relu(input)")).check == "anticheat.torch_fallback"


def test_a_cuda_candidate_needs_a_kernel_and_must_use_its_extension():
    no_kernel = judge(candidate(kernel="torch::Tensor relu_forward(torch::Tensor x) { return x; }"))
    assert (no_kernel.status, no_kernel.check) == (Status.REJECTED_STATIC, "cuda_kernel")
    assert "__global__" in no_kernel.message
    unused = judge(candidate(body="return input"))
    assert unused.check == "cuda_kernel" and "never used" in unused.message


def test_a_build_inside_a_function_is_refused_as_the_wrong_form():
    code = candidate(body="return build().relu_forward(input)").replace(
        "ext = load_inline(", "def build():\n    return load_inline(")
    verdict = judge(code)
    assert verdict.check == "anticheat.native_form" and "lazy build" in verdict.message, verdict


def test_without_a_build_the_module_stays_forbidden():
    code = candidate(loader="dict")  # `ext = dict(name=..., ...)`: the module is imported, nothing is built
    verdict = judge(code)
    assert verdict.check == "anticheat.forbidden_call" and "cpp_extension" in verdict.message, verdict
