"""Every reference runs on the values the timing stage gives it: before each timed call the inputs are scaled by
fresh factors near 1 (`kbx.timing.refresh`), a few hundred times per input set in a long measurement. A reference
with a domain (torch.bernoulli's p <= 1) must declare it in `input_ranges`, or its eager baseline raises on the
GPU with a device-side assert; here the same mistake fails on the CPU."""

from __future__ import annotations

import pytest
import torch

from kbx.tasks.module import import_task
from kbx.tasks.registry import default_suite_root, load_suite
from kbx.timing.refresh import ValueRefresher

TASKS = load_suite(default_suite_root())
VISITS = 300
"""About the visits one of three rotated sets gets in the longest measurement (DESIGN §6)."""


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_the_reference_accepts_its_inputs_after_the_timing_refresh(task):
    code = import_task(task)
    smoke = next(w for w in task.workloads if w.role == "smoke")
    for dtype in task.dtypes:
        inputs = code.make_inputs(smoke, dtype, torch.Generator().manual_seed(0))
        refresh = ValueRefresher("cpu", seed=1)
        refresh.keep_within(task.input_ranges)
        for _ in range(VISITS):
            refresh(inputs)
        with torch.no_grad():
            code.reference(**inputs)
