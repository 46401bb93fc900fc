"""The work overrides: attention pairs counted from the masks PyTorch's own definitions build and FLOPs on the
FLOP counter's convention where nothing is masked; band sizes from tril/triu; every task's `min_bytes` below the
count of every tensor read whole."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from kbx.tasks.module import import_task
from kbx.tasks.registry import load_suite
from kbx.tasks.work import attended_pairs, attention_flops, band_elements, tensor_bytes
from kbx.timing.sol import minimum_bytes


@pytest.mark.parametrize(("s_q", "s_kv"), [(7, 7), (5, 9), (9, 5), (1, 4), (4, 1)])
def test_causal_pairs_are_those_of_torchs_top_left_mask(s_q, s_kv):
    mask = torch.ones(s_q, s_kv, dtype=torch.bool).tril()  # PyTorch's documented is_causal mask
    assert attended_pairs(s_q, s_kv, causal=True) == int(mask.sum())
    assert attended_pairs(s_q, s_kv) == s_q * s_kv


@pytest.mark.parametrize(("seq", "window"), [(10, 3), (10, 10), (10, 20), (6, 1)])
def test_window_pairs_are_those_of_a_causal_band(seq, window):
    i = torch.arange(seq)[:, None]
    j = torch.arange(seq)[None, :]
    band = (j <= i) & (j > i - window)
    assert attended_pairs(seq, seq, window=window) == int(band.sum())


def test_unmasked_attention_counts_what_torchs_flop_counter_counts_and_causal_about_half():
    q, k, v = torch.randn(2, 3, 64, 16), torch.randn(2, 3, 64, 16), torch.randn(2, 3, 64, 8)
    with FlopCounterMode(display=False) as counter:
        F.scaled_dot_product_attention(q, k, v)
    assert attention_flops(6, 64, 64, 16, 8) == counter.get_total_flops()
    assert attention_flops(6, 64, 64, 16, 8, causal=True) == counter.get_total_flops() * (64 * 65 // 2) // (64 * 64)


@pytest.mark.parametrize(("rows", "cols"), [(5, 5), (3, 7), (7, 3), (1, 4)])
@pytest.mark.parametrize("diagonal", [-9, -2, 0, 1, 3, 9])
def test_band_elements_are_what_tril_and_triu_keep(rows, cols, diagonal):
    ones = torch.ones(rows, cols)
    assert band_elements(rows, cols, diagonal, lower=True) == int(torch.tril(ones, diagonal).sum())
    assert band_elements(rows, cols, diagonal, lower=False) == int(torch.triu(ones, diagonal).sum())


def test_tensor_bytes_counts_elements_and_skips_none():
    assert tensor_bytes(torch.zeros(3, 4), None, torch.zeros(5, dtype=torch.int64)) == 3 * 4 * 4 + 5 * 8


def _with_min_bytes():
    for task in load_suite():
        code = import_task(task)
        if code.min_bytes is not None:
            yield pytest.param(task, code, id=task.name)


@pytest.mark.parametrize(("task", "code"), list(_with_min_bytes()))
def test_a_tasks_min_bytes_lies_between_its_outputs_and_every_tensor_read_whole(task, code):
    """An override can only lower the count (it exists because reading every input whole overcounts; on some
    workload it must), and no kernel does without writing its outputs."""
    lowered = False
    for workload in task.workloads:
        if workload.role == "bench":
            continue
        for dtype in task.dtypes:
            inputs = code.make_inputs(workload, dtype, torch.Generator().manual_seed(0))
            outputs = code.reference(**inputs)
            counted = code.min_bytes(**inputs)
            assert minimum_bytes({}, outputs) <= counted <= minimum_bytes(inputs, outputs), workload.name
            lowered |= counted < minimum_bytes(inputs, outputs)
    assert lowered


def test_nll_loss_reads_one_element_per_kept_target():
    code = import_task(next(t for t in load_suite() if t.name == "nll_loss"))
    target = torch.tensor([[0, 2], [-100, 1]])
    x = torch.zeros(2, 3, 2, dtype=torch.bfloat16)
    assert code.min_bytes(x, target, reduction="none") == 4 * 8 + (3 + 4) * 2
    assert code.min_bytes(x, target, weight=torch.ones(3, dtype=torch.bfloat16)) == 4 * 8 + (3 + 3 + 1) * 2
