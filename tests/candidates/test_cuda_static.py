"""The CUDA backend's static stage: the `load_inline` form it allows, what it reads from it, and what it refuses in
the call, the flags and the C++/CUDA sources (kbx.candidates.cuda, native_flags, native_rules)."""

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


@pytest.mark.parametrize("code, expected", [
    (candidate(imports="from torch.utils.cpp_extension import load", loader="load"), "load() builds from files"),
    (candidate(head="from torch.utils.cpp_extension import CUDA_HOME"), "imports torch.utils.cpp_extension.CUDA_HOME"),
    (candidate(head="builder = load_inline"), "only `NAME = load_inline(...)` at module level"),
    (candidate(body="return load_inline(name='x', cpp_sources='').f(input)"), "only `NAME = load_inline(...)`"),
    (candidate(head="SRC2 = ''.join(['__global__'])").replace("cuda_sources=SRC", "cuda_sources=SRC2"),
     "must be a literal or a module-level name"),
    (candidate(call=", extra_cuda_cflags=FLAGS", head="FLAGS = ['-O3']\nFLAGS.append('-lcublas')"),
     "the list `FLAGS` is read outside"),
    (candidate(call=", **OPTIONS", head="OPTIONS = {}"), "not unpacked from **"),
    (candidate(call=", build_directory='/tmp/x'"), "kbx chooses where an extension is built"),
    (candidate(call=", use_pch=True"), "precompiled header"),
    (candidate(call=", is_python_module=False"), "must be a Python module"),
    (candidate(call=", extra_include_paths=['/usr/include']"), "only torch's and the CUDA toolkit's headers"),
    (candidate().replace('functions=["relu_forward"]', 'functions=["relu_forward\\"); system(\\"id"]'),
     "plain identifiers"),
    (candidate(head="SRC = 'x'"), "must be a module-level name bound once"),
    (candidate(body="global ext\n    ext = None\n    return input"), "bound more than once"),
])
def test_anything_but_the_allowed_form_is_refused(code, expected):
    verdict = judge(code)
    assert verdict.status is Status.REJECTED_STATIC, verdict
    assert verdict.check.startswith("anticheat.native_form") and expected in verdict.message, verdict.message


@pytest.mark.parametrize("flags", [
    ["-O3", "--use_fast_math"], ["-Xptxas", "-v"], ["-Xptxas=-O3,-v"], ["-gencode", "arch=compute_90a,code=sm_90a"],
    ["-arch=sm_90"], [""], ["-Xcompiler", "-O3"], ["-DBLOCK=256", "-U__CUDA_NO_HALF_OPERATORS__"],
    ["-O3 --use_fast_math"], ["--maxrregcount=64", "-lineinfo"],
])
def test_code_generation_flags_are_allowed(flags):
    verdict = judge(candidate(call=f", extra_cuda_cflags={flags!r}, extra_cflags=['-O3'], extra_ldflags=['']"))
    assert verdict.status is None, verdict.message


@pytest.mark.parametrize("argument, flags, expected", [
    ("extra_cuda_cflags", ["-lcublas"], "links a library"),
    ("extra_cuda_cflags", ["-L/usr/lib", "-lcudnn"], "links a library"),
    ("extra_cuda_cflags", ["-Xlinker", "-rpath"], "passes options to the linker"),
    ("extra_cflags", ["-Wl,--whole-archive"], "passes options to the linker"),
    ("extra_cflags", ["-I/tmp"], "adds headers or files from elsewhere"),
    ("extra_cuda_cflags", ["-include", "/etc/passwd"], "adds headers or files from elsewhere"),
    ("extra_cuda_cflags", ["-O3;touch /tmp/x"], "is not on the allow-list"),
    ("extra_cuda_cflags", ["-O3 `id`"], "is not on the allow-list"),
    ("extra_cuda_cflags", ["-DX=$(id)"], "is not on the allow-list"),
    ("extra_cuda_cflags", ["-ccbin=/bin/sh"], "changes which programs run"),
    ("extra_cuda_cflags", ["-rdc=true"], "relocatable device code"),
    ("extra_cuda_cflags", ["-Xcompiler", "-fopenmp"], "is not on the allow-list"),
    ("extra_cflags", ["-fopenmp"], "threads act outside the call"),
    ("extra_ldflags", ["-lcublas"], "no linker flags"),
])
def test_flags_that_link_include_or_run_anything_are_refused(argument, flags, expected):
    verdict = judge(candidate(call=f", {argument}={flags!r}"))
    assert verdict.status is Status.REJECTED_STATIC and verdict.check == "anticheat.native_flag", verdict
    assert expected in verdict.message, verdict.message


@pytest.mark.parametrize("line, expected", [
    ("#include <cublas_v2.h>", "includes <cublas_v2.h>"),
    ("#include <cudnn.h>", "includes <cudnn.h>"),
    ("#include <ATen/native/cuda/Loops.cuh>", "past its dispatcher"),
    ("#include <ATen/cuda/CUDABlas.h>", "past its dispatcher"),
    ("#include <thrust/sort.h>", "a library would compute"),
    ("#include <dlfcn.h>", "loads code"),
    ('#include "../../../usr/include/cublas_v2.h"', "includes"),
    ("#define H <cublas_v2.h>\n#include H", "computed name"),
    ("#define CAT(a, b) a##b", "token pasting"),
    ("int x = \\u0063ublasCreate(0);", "universal character names"),
    ("%:include <cublas_v2.h>", "includes <cublas_v2.h>"),
    ("void f() { cublasHandle_t h; cublasCreate(&h); }", "uses `cublasHandle_t`"),
    ("void f() { void* h = dlopen(\"libcublas.so\", 2); }", "loads code"),
    ("void f() { std::thread t([]{}); t.join(); }", "threads"),
    ("void f() { system(\"id\"); }", "system("),
    ("void f() { cudaStream_t s; cudaStreamCreate(&s); }", "another stream"),
    ("void f() { cudaGraph_t g; cudaGraphLaunch(0, 0); }", "graph"),
    ("void f() { PyRun_SimpleString(\"import os\"); }", "back into Python"),
    ("void f() { pybind11::module_::import(\"torch\"); }", "back into Python"),
    ("void f() { const char* e = getenv(\"HOME\"); }", "environment"),
    ("void f(torch::Tensor x) { at::native::relu(x); }", "past its dispatcher"),
    ("__attribute__((constructor)) void early() {}", "when the library loads"),
    ("using namespace torch;", "qualify them"),
])
def test_the_sources_may_not_reach_libraries_loaders_processes_or_python(line, expected):
    verdict = judge(candidate(kernel=KERNEL + "\n" + line + "\n"))
    assert verdict.status is Status.REJECTED_STATIC and verdict.check == "anticheat.native_source", verdict
    assert expected in verdict.message, verdict.message
    assert "cuda_sources, line" in verdict.message


@pytest.mark.parametrize("line", [
    "torch::Tensor g(torch::Tensor x) { return at::relu(x); }",
    "torch::Tensor g(torch::Tensor x) { return torch::relu(x); }",
    "torch::Tensor g(torch::Tensor x) { return x.relu(); }",
    "torch::Tensor g(torch::Tensor x) { return x.clamp_min(0); }",
    "torch::Tensor g(torch::Tensor x) { return torch::nn::functional::relu(x); }",
    "torch::Tensor g(torch::Tensor x) { return at::relu_out(x, x); }",
    "torch::Tensor g(torch::Tensor x) { return x.relu_(); }",
    "using at::relu;",
    "auto g = &at::relu;",
])
def test_the_tasks_forbidden_operations_are_refused_in_cpp(line):
    verdict = judge(candidate(kernel=KERNEL + "\n" + line + "\n"))
    assert verdict.status is Status.REJECTED_STATIC and verdict.check == "anticheat.torch_fallback", verdict
    assert "core operation" in verdict.message


def test_the_at_relu_fixture_is_rejected_for_at_relu():
    verdict = judge((FIXTURES / "relu_at_relu.py").read_text())
    assert verdict.check == "anticheat.torch_fallback" and "`at::relu`" in verdict.message


@pytest.mark.parametrize("line", [
    "// cublasSgemm would be faster, but the task forbids libraries",
    "/* at::relu(x) is what this replaces */",
    'void f(torch::Tensor x) { TORCH_CHECK(x.is_cuda(), "cuBLAS-free relu: x.relu() is forbidden"); }',
    "int blocks(int n) { return std::max(1, std::min(n / 256, 65535)); }",
    "__device__ float g(float a) { return fmaxf(a, 0.f); }",
    "torch::Tensor g(torch::Tensor x) { return x.clone(); }",
    "#include <ATen/cuda/CUDAContext.h>\nvoid f() { auto s = at::cuda::getCurrentCUDAStream(); }",
    "#include <cub/block/block_reduce.cuh>",
    "#include <curand_kernel.h>",
    "long big = 1'000'000;",
    'const char* raw = R"(#include <cublas_v2.h> dlopen)";',
    "#define CHECK(x) TORCH_CHECK(x.is_contiguous(), #x \" must be contiguous\")",
])
def test_no_false_alarm_on_honest_code(line):
    verdict = judge(candidate(kernel=KERNEL + "\n" + line + "\n"))
    assert verdict.status is None, verdict.message


def test_an_extension_function_named_like_the_operation_is_the_candidates_own():
    code = candidate().replace('functions=["relu_forward"]', 'functions=["relu"]').replace(
        "relu_forward(torch::Tensor x)", "relu(torch::Tensor x)").replace("ext.relu_forward(", "ext.relu(")
    assert judge(code).status is None
    fallback = judge(code.replace("return ext.relu(input)", "return input.relu()"))
    assert fallback.check == "anticheat.torch_fallback"


def test_a_bound_function_must_not_name_a_forbidden_call():
    """`functions` becomes C++ in the binding torch writes: `system` would bind libc's."""
    code = candidate().replace('functions=["relu_forward"]', 'functions=["relu_forward", "system"]')
    verdict = judge(code)
    assert verdict.check == "anticheat.native_source" and "functions[1], line 1: uses `system(`" in verdict.message


def test_the_python_rules_still_hold_around_the_extension():
    assert judge(candidate(head="import ctypes")).check == "anticheat.forbidden_import"
    assert judge(candidate(body="return torch.relu(input)")).check == "anticheat.torch_fallback"


def test_a_cuda_candidate_needs_a_kernel_and_must_use_its_extension():
    no_kernel = judge(candidate(kernel="torch::Tensor relu_forward(torch::Tensor x) { return x; }"))
    assert (no_kernel.status, no_kernel.check) == (Status.REJECTED_STATIC, "cuda_kernel")
    assert "__global__" in no_kernel.message
    unused = judge(candidate(body="return input"))
    assert unused.check == "cuda_kernel" and "never used" in unused.message


def test_without_a_build_the_module_stays_forbidden():
    code = candidate(loader="dict")  # `ext = dict(name=..., ...)`: the module is imported, nothing is built
    verdict = judge(code)
    assert verdict.check == "anticheat.forbidden_call" and "cpp_extension" in verdict.message, verdict
