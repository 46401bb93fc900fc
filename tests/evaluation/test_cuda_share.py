"""What of the shared GPU blocks runs without a GPU: the description's JSON form, and the refusal of a description
that does not fit before any driver call (export and import on a GPU: tests/gpu/test_cuda_share_gpu.py)."""

from __future__ import annotations

import os

import pytest

from kbx.evaluation import cuda_share
from kbx.evaluation.cuda_share import CudaShareError, SharedBlock, import_copy

BLOCK = SharedBlock(size=2 << 20, nbytes=4 * 6, dtype="float32", shape=(2, 3))


def test_a_block_goes_to_json_and_back():
    raw = BLOCK.to_json()
    assert raw == {"size": 2 << 20, "nbytes": 24, "dtype": "float32", "shape": [2, 3]}
    assert SharedBlock.from_json(raw) == BLOCK


@pytest.mark.parametrize(("forged", "says"), [
    ({"dtype": "os"}, "no such dtype"),
    ({"dtype": "Tensor"}, "no such dtype"),
    ({"shape": [2, -3]}, "not a shape"),
    ({"shape": [2, 3.0]}, "not a shape"),
    ({"nbytes": 25}, "cannot hold"),
    ({"nbytes": 0, "shape": [0]}, "cannot hold"),
    ({"size": 16}, "cannot hold"),
])
def test_a_description_that_does_not_fit_is_refused_before_the_driver_and_its_descriptor_closed(forged, says,
                                                                                              monkeypatch):
    def no_driver():
        raise AssertionError("the driver was called")

    monkeypatch.setattr(cuda_share, "_cuda", no_driver)
    read_end, write_end = os.pipe()
    os.close(write_end)
    with pytest.raises(CudaShareError, match=says):
        import_copy(read_end, SharedBlock.from_json({**BLOCK.to_json(), **forged}))
    with pytest.raises(OSError):
        os.fstat(read_end)
