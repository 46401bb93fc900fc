"""The candidate worker's side of the CUDA backend (kbx.evaluation.candidate.extensions): the candidate's
`load_inline` call gets the module built for exactly its arguments, every call into it counts as a launch of the
candidate's, and its kernels join the launch trace's own kernels. A C module stands in for a built extension (a
CUDA one cannot be loaded without a GPU build of torch)."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sysconfig
from pathlib import Path
from types import SimpleNamespace

import pytest

from kbx.evaluation.candidate.extensions import (
    RUNTIME_LAUNCHERS,
    ExtensionChanged,
    ExtensionNotBuilt,
    Served,
    install,
    watch,
)
from kbx.evaluation.candidate.launch_trace import OWN_LAUNCHERS
from kbx.evaluation.extensions import BuiltExtension, from_arguments

MODULE = r"""
#include <Python.h>
static PyObject* twice(PyObject* self, PyObject* arg) { return PyNumber_Add(arg, arg); }
static PyMethodDef methods[] = {{"twice", twice, METH_O, "2x"}, {0, 0, 0, 0}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "fake_ext", 0, -1, methods};
PyMODINIT_FUNC PyInit_fake_ext(void) { return PyModule_Create(&module); }
"""
ARGS = {"name": "fake_ext", "cpp_sources": "int twice();", "cuda_sources": "__global__ void k() {}",
        "functions": ["twice"]}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> BuiltExtension:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs a C compiler")
    folder = tmp_path_factory.mktemp("ext")
    (folder / "fake.c").write_text(MODULE)
    subprocess.run([compiler, "-shared", "-fPIC", f"-I{sysconfig.get_paths()['include']}", str(folder / "fake.c"),
                    "-o", str(folder / "fake_ext.so")], check=True, capture_output=True)
    digest = hashlib.sha256((folder / "fake_ext.so").read_bytes()).hexdigest()
    return BuiltExtension(from_arguments(ARGS).digest(), "fake_ext", str(folder / "fake_ext.so"), ("k()", "_Z1kv"),
                          digest)


def test_the_call_the_static_stage_read_gets_the_built_module(built):
    served = Served([built])
    module = served.serve("fake_ext", "int twice();", cuda_sources=["__global__ void k() {}"], functions="twice",
                          verbose=True)
    assert module.twice(21) == 42
    assert served.serve(**ARGS) is module  # imported once


def test_a_call_with_other_arguments_finds_no_module(built):
    with pytest.raises(ExtensionNotBuilt, match="the static stage did not read"):
        Served([built]).serve(**{**ARGS, "extra_cuda_cflags": ["-O3"]})
    with pytest.raises(ValueError, match="kbx chooses where"):
        Served([built]).serve(**ARGS, build_directory="/tmp/elsewhere")


def test_calls_into_the_extension_are_recorded_as_the_candidates_launches(built):
    served = Served([built])
    tracer = SimpleNamespace(own_names={"triton_kernel"}, own_launchers=OWN_LAUNCHERS)
    guards = SimpleNamespace(launches=SimpleNamespace(launches=[]))
    watch(served, tracer, guards)
    module = served.serve(**ARGS)
    module.twice(1)
    module.twice(2)
    assert guards.launches.launches == ["candidate.fake_ext.twice"] * 2
    assert tracer.own_names == {"triton_kernel", "k()", "_Z1kv"}
    assert tracer.own_launchers == OWN_LAUNCHERS | RUNTIME_LAUNCHERS and "cudaLaunchKernel" in tracer.own_launchers


def test_install_puts_the_served_modules_in_place_of_load_inline(built, monkeypatch):
    import torch.utils.cpp_extension as cpp

    monkeypatch.setattr(cpp, "load_inline", cpp.load_inline)  # restored afterwards
    assert install([]) is None and cpp.load_inline.__module__ == "torch.utils.cpp_extension"
    served = install([built.to_json()])
    assert served is not None and cpp.load_inline == served.serve
    assert cpp.load_inline(**ARGS).twice(5) == 10


def test_without_extensions_nothing_is_watched():
    tracer = SimpleNamespace(own_names=set(), own_launchers=OWN_LAUNCHERS)
    watch(None, tracer, None)
    assert tracer.own_launchers == OWN_LAUNCHERS and not tracer.own_names


def test_build_dirs_have_nothing_to_do_with_where_the_module_is(built, tmp_path: Path):
    moved = tmp_path / "elsewhere" / "fake_ext.so"
    moved.parent.mkdir()
    shutil.copy2(built.path, moved)
    relocated = BuiltExtension(built.digest, built.name, str(moved), built.kernels, built.sha256)
    assert Served([relocated]).serve(**ARGS).twice(2) == 4


def test_a_module_file_the_candidate_replaced_is_not_imported(built, tmp_path: Path):
    """The module lies in the candidate's own job directory, which it may write: a binary of its own put there
    would run native code no static rule has read."""
    swapped = tmp_path / "fake_ext.so"
    swapped.write_bytes(Path(built.path).read_bytes() + b"\0")
    with pytest.raises(ExtensionChanged, match="runtime.extension_changed"):
        Served([BuiltExtension(built.digest, built.name, str(swapped), (), built.sha256)]).serve(**ARGS)
