"""Pieces of the build job (kbx.evaluation.candidate.extension_build) that run without a GPU: the compiler's first
error lines out of a ninja log, and the names of the kernels in a compiled object (with nvcc, where it exists)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kbx.evaluation.candidate.extension_build import first_errors, kernel_names
from kbx.evaluation.orchestrator.extensions import find_cuda_home

BUILD = "/dev/shm/kbx-job-x/build/0123"

NVCC_LOG = f"""[1/3] /usr/local/cuda/bin/nvcc -DTORCH_EXTENSION_NAME=e -isystem /x -c {BUILD}/cuda.cu -o cuda.cuda.o
FAILED: cuda.cuda.o
/usr/local/cuda/bin/nvcc -DTORCH_EXTENSION_NAME=e -isystem /x -c {BUILD}/cuda.cu -o cuda.cuda.o
cuda_sources(6): error: expected a ";"
      if (i < n) {{
      ^

cuda_sources(9): warning #12-D: parsing restarts here after previous syntax error
  }}
  ^

cuda_sources(14): error: identifier "undefined_thing" is undefined
      undefined_thing(x);
      ^

2 errors detected in the compilation of "{BUILD}/cuda.cu".
ninja: build stopped: subcommand failed.
"""

GCC_LOG = f"""[1/2] c++ -MMD -MF main.o.d -DTORCH_EXTENSION_NAME=e -isystem /x -fPIC -c {BUILD}/main.cpp -o main.o
FAILED: main.o
c++ -MMD -MF main.o.d -DTORCH_EXTENSION_NAME=e -isystem /x -fPIC -c {BUILD}/main.cpp -o main.o
{BUILD}/main.cpp: In function 'void pybind11_init_e(pybind11::module_&)':
cpp_sources:4:46: error: 'relu_forward' was not declared in this scope
    4 | m.def("relu_forward", torch::wrap_pybind_function(relu_forward), "relu_forward");
      |                                                   ^~~~~~~~~~~~
ninja: build stopped: subcommand failed.
"""

LINK_LOG = """[3/3] c++ main.o cuda.cuda.o -shared -L/t/lib -lc10 -ltorch -o e.so
FAILED: e.so
c++ main.o cuda.cuda.o -shared -L/t/lib -lc10 -ltorch -o e.so
/usr/bin/ld: cannot find -lc10_cuda: No such file or directory
collect2: error: ld returned 1 exit status
ninja: build stopped: subcommand failed.
"""


def test_nvccs_errors_come_with_their_source_lines_and_without_commands():
    summary = first_errors(NVCC_LOG, BUILD)
    assert summary.splitlines() == [
        'cuda_sources(6): error: expected a ";"', "      if (i < n) {", "      ^",
        'cuda_sources(14): error: identifier "undefined_thing" is undefined', "      undefined_thing(x);", "      ^",
    ]


def test_gccs_errors_name_the_candidates_string_and_show_the_line():
    summary = first_errors(GCC_LOG, BUILD)
    assert summary.startswith("cpp_sources:4:46: error: 'relu_forward' was not declared in this scope")
    assert "wrap_pybind_function(relu_forward)" in summary and "-isystem" not in summary


def test_linker_errors_are_kept():
    expected = ["/usr/bin/ld: cannot find -lc10_cuda: No such file or directory"]
    assert first_errors(LINK_LOG, BUILD).splitlines() == expected


def test_at_most_a_dozen_lines():
    log = "".join(f"cuda_sources({i}): error: bad\n" for i in range(40))
    assert len(first_errors(log, BUILD).splitlines()) == 12


def test_a_log_without_error_lines_gives_its_last_lines():
    assert first_errors("[1/1] c++ -c a.cpp -o a.o\nSegmentation fault (core dumped)\n", BUILD) == (
        "Segmentation fault (core dumped)")


@pytest.mark.skipif(find_cuda_home() is None, reason="needs the CUDA toolkit (nvcc)")
def test_kernel_names_are_read_from_a_compiled_object(tmp_path: Path):
    source = tmp_path / "k.cu"
    source.write_text("""
__device__ float helper(float v) { return v > 0 ? v : 0; }
__global__ void relu_kernel(const float* x, float* y, long n) { long i = threadIdx.x; if (i < n) y[i] = helper(x[i]); }
template <typename T> __global__ void scale(T* x, T a) { x[threadIdx.x] *= a; }
namespace ns { __global__ void inner(int* p) { p[0] = 1; } }
void host_only(float* p) {}
void launch(float* x, float* y, double* d) {
    relu_kernel<<<1, 1>>>(x, y, 1); scale<float><<<1, 1>>>(y, 2.f); scale<double><<<1, 1>>>(d, 2.0);
    ns::inner<<<1, 1>>>(nullptr);
}
""")
    nvcc = Path(find_cuda_home() or "") / "bin" / "nvcc"
    subprocess.run([str(nvcc), "-c", str(source), "-o", str(tmp_path / "k.o"), "-gencode=arch=compute_90,code=sm_90",
                    "-Xcompiler", "-fPIC"], check=True, capture_output=True)
    names = set(kernel_names([tmp_path / "k.o"]))
    assert {"relu_kernel(float const*, float*, long)", "void scale<float>(float*, float)",
            "void scale<double>(double*, double)", "ns::inner(int*)", "_Z11relu_kernelPKfPfl"} <= names
    assert not any("helper" in n or "host_only" in n or "launch" in n for n in names)


def test_a_header_missing_under_torchs_own_headers_is_the_machines_failure():
    """torch's CPU wheel lacks the header its CUDA builds generate; a candidate's own missing include is its own."""
    from kbx.evaluation.candidate.extension_build import _missing_under

    include = "/venv/lib/python3.11/site-packages/torch/include"
    torchs = (f"In file included from {include}/c10/cuda/CUDAException.h:4,\n                 from cuda_sources:3:\n"
              f"{include}/c10/cuda/CUDAMacros.h:9:10: fatal error: c10/cuda/impl/cuda_cmake_macros.h: No such file "
              "or directory\n")
    candidates = "cuda_sources:3:10: fatal error: my_header.h: No such file or directory\n"
    assert _missing_under(torchs, include) and not _missing_under(candidates, include)
