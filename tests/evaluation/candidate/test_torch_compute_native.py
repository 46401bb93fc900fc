"""The dispatch recorder sees torch's operators called from a compiled extension: `at::relu` in C++ goes through
torch's dispatcher on the calling thread, where the recorder's dispatch mode is. So a CUDA candidate that hands its
work to ATen from C++ is `runtime.torch_compute` at run time, whatever name the static rules missed. A C++-only
extension (no CUDA) stands in for one: it builds and runs with torch's CPU wheel."""

from __future__ import annotations

import _thread
import shutil
import threading

import pytest
import torch

from kbx.evaluation.candidate.torch_compute import TorchComputeRecorder
from kbx.evaluation.orchestrator.torch_work import torch_compute_violation

SOURCE = """
#include <torch/extension.h>
torch::Tensor hidden(torch::Tensor x) { return at::relu(x); }
torch::Tensor allocates(torch::Tensor x) { return torch::empty_like(x.contiguous()); }
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("c++") is None or shutil.which("ninja") is None, reason="needs c++ and ninja")
def test_aten_called_from_cpp_is_tallied(tmp_path, monkeypatch):
    from torch.utils.cpp_extension import load_inline

    monkeypatch.setattr(threading.Thread, "_bootstrap_inner", threading.Thread._bootstrap_inner)
    monkeypatch.setattr(_thread, "start_new_thread", _thread.start_new_thread)
    extension = load_inline(name="kbx_native_dispatch", cpp_sources=SOURCE, functions=["hidden", "allocates"],
                            build_directory=str(tmp_path))
    x = torch.randn(4096)
    recorder = TorchComputeRecorder()
    with recorder.recording():
        extension.allocates(x)
    assert torch_compute_violation(recorder.tally({"x": x})) == ""
    with recorder.recording():
        extension.hidden(x)
    work = recorder.tally({"x": x})
    assert dict(work.ops).get("aten.relu", 0) >= 4096, dict(work.ops)
    assert torch_compute_violation(work).startswith("runtime.torch_compute")
