"""Known GPUs, found by the names devices report, and how the target is described to a model."""

from __future__ import annotations

import pytest

from kbx.generate.gpus import KNOWN_GPUS, describe_target, find_gpu


@pytest.mark.parametrize(("name", "known"), [("NVIDIA H200", "H200"), ("NVIDIA H100 80GB HBM3", "H100"),
                                             ("NVIDIA A100-SXM4-80GB", "A100"), ("NVIDIA L40S", "L40S"),
                                             ("NVIDIA GeForce RTX 4090", "RTX 4090"), ("rtx 5090", "RTX 5090")])
def test_known_gpus_are_found_by_device_name(name, known):
    assert find_gpu(name).name == known


def test_an_unknown_gpu_is_named_without_figures():
    assert describe_target("NVIDIA B200") == "NVIDIA B200 (kbx has no figures for this GPU)."


def test_a_known_gpu_is_described_with_its_figures():
    assert describe_target("NVIDIA H100 80GB HBM3") == (
        "NVIDIA H100: 132 SMs, 80 GB at 3.35 TB/s, 50 MB L2; peak 67 TFLOP/s fp32 (CUDA cores), 494 TFLOP/s tf32 "
        "and 989 TFLOP/s fp16/bf16 on tensor cores (dense).")


def test_the_cpu_is_the_interpreter():
    assert describe_target(None) == describe_target("cpu")
    assert describe_target(None).startswith("CPU through Triton's interpreter")


def test_no_known_name_is_inside_one_listed_after_it():
    """Matching is by substring in list order: a name containing an earlier one would never be found."""
    names = [gpu.name.lower() for gpu in KNOWN_GPUS]
    for i, name in enumerate(names):
        assert find_gpu(name).name.lower() == name
        assert not any(earlier in name for earlier in names[:i])
