"""What a CUDA candidate's C++/CUDA sources may not do (kbx.candidates.native_rules): reach libraries, loaders,
processes or Python, or call the task's forbidden operations through ATen; and no false alarm on honest code."""

from __future__ import annotations

import pytest

from kbx.status import Status
from tests.candidates.test_cuda import FIXTURES, KERNEL, candidate, judge


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


def test_a_bound_function_must_not_name_a_forbidden_call():
    """`functions` becomes C++ in the binding torch writes: `system` would bind libc's."""
    code = candidate().replace('functions=["relu_forward"]', 'functions=["relu_forward", "system"]')
    verdict = judge(code)
    assert verdict.check == "anticheat.native_source" and "functions[1], line 1: uses `system(`" in verdict.message


_OWN_STRUCT = "struct Act { float v; __device__ float relu() const { return fmaxf(v, 0.f); } };\n"


def test_a_method_of_the_candidates_own_struct_in_device_code_is_no_torch_call():
    kernel = _OWN_STRUCT + "__global__ void k2(float* y) { Act a{y[0]}; y[0] = a.relu(); }\n"
    assert judge(candidate(kernel=KERNEL + "\n" + kernel)).status is None


@pytest.mark.parametrize("kernel", [
    "__host__ __device__ float h(Act a) { return a.relu(); }",  # also compiled for the host
    "torch::Tensor g(torch::Tensor x) { return x.relu(); }",
    "__global__ void k2(float* y) {\n#define R(t) t.relu()\n}\ntorch::Tensor g(torch::Tensor x) { return R(x); }",
])
def test_a_forbidden_method_outside_device_only_code_is_still_refused(kernel):
    verdict = judge(candidate(kernel=KERNEL + "\n" + _OWN_STRUCT + kernel + "\n"))
    assert verdict.check == "anticheat.torch_fallback", verdict


def test_the_function_qualifiers_may_not_be_redefined():
    verdict = judge(candidate(kernel="#define __device__\n" + KERNEL))
    assert verdict.check == "anticheat.native_source" and "qualifiers" in verdict.message, verdict
