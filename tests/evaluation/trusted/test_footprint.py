"""Bench workloads sized without allocating: inputs and outputs under fake tensors, at the task's widest dtype."""

from __future__ import annotations

import time
from types import SimpleNamespace

import torch

from kbx.evaluation.trusted.footprint import bench_footprint
from kbx.tasks.module import import_task


def test_an_elementwise_bench_is_its_input_and_output_at_the_widest_dtype(suite):
    elements = 16384 * 32768  # relu's bench, float32 being wider than float16
    assert bench_footprint(import_task(suite["relu"])) == {"bench": 2 * 4 * elements}


def test_a_bench_over_2_31_elements_with_a_drawn_seed_is_sized_without_allocating(suite):
    began = time.monotonic()
    sizes = bench_footprint(import_task(suite["dropout"]))  # its make_inputs draws a seed with .item()
    assert time.monotonic() - began < 30
    assert sizes["bench_over_2_31"] == 2 * 4 * (65537 * 32768)
    assert set(sizes) == {"bench", "bench_over_2_31", "bench_p09"}
    assert torch.ones(1).item() == 1.0  # scalars read as 0 only while sizing


def test_outputs_sized_by_their_values_count_as_large_as_the_inputs_and_unmakeable_inputs_are_unknown(suite):
    task = suite["relu"]

    def value_dependent(input):
        return input[input > 0]  # its size depends on the values: fake tensors cannot tell it

    def broken(workload, dtype, generator):
        raise ValueError("no inputs")

    code = import_task(task)
    sized = bench_footprint(SimpleNamespace(task=task, make_inputs=code.make_inputs, reference=value_dependent))
    assert sized == {"bench": 2 * 4 * 16384 * 32768}
    assert bench_footprint(SimpleNamespace(task=task, make_inputs=broken, reference=value_dependent)) == {}
