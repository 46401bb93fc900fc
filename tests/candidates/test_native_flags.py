"""The compiler flags a CUDA candidate may pass to `load_inline` (kbx.candidates.native_flags): code generation
yes; linking, include paths, other programs and shell syntax no."""

from __future__ import annotations

import pytest

from kbx.status import Status
from tests.candidates.test_cuda import candidate, judge


@pytest.mark.parametrize("flags", [
    ["-O3", "--use_fast_math"], ["-Xptxas", "-v"], ["-Xptxas=-O3,-v"], ["-gencode", "arch=compute_90a,code=sm_90a"],
    ["-arch=sm_90"], [""], ["-Xcompiler", "-O3"], ["-DBLOCK=256", "-U__CUDA_NO_HALF_OPERATORS__"],
    ["-O3 --use_fast_math"], ["--maxrregcount=64", "-lineinfo"],
    ["-Xcudafe", "--diag_suppress=177"], ["--threads", "4"], ["-t", "2"], ["-arch=all-major"],
    ["--extra-device-vectorization"], ["-Xcompiler", "-fno-gnu-unique"],
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
    ("extra_cuda_cflags", ["-arch=native"], "is not on the allow-list"),  # the build job has no GPU to ask
    ("extra_cuda_cflags", ["-Xcompiler", "-fopenmp"], "is not on the allow-list"),
    ("extra_cflags", ["-fopenmp"], "threads act outside the call"),
    ("extra_ldflags", ["-lcublas"], "no linker flags"),
])
def test_flags_that_link_include_or_run_anything_are_refused(argument, flags, expected):
    verdict = judge(candidate(call=f", {argument}={flags!r}"))
    assert verdict.status is Status.REJECTED_STATIC and verdict.check == "anticheat.native_flag", verdict
    assert expected in verdict.message, verdict.message
