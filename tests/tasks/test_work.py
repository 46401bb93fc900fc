"""The work overrides of attention tasks: pairs counted from the masks PyTorch's own definitions build, and
FLOPs on the FLOP counter's convention where nothing is masked."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.utils.flop_counter import FlopCounterMode

from kbx.tasks.work import attended_pairs, attention_flops


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
