"""Finding a call's tensors, and which of them share memory."""

from __future__ import annotations

import torch

from kbx.timing._tensors import iter_tensors, storage_key


def test_tensors_are_found_inside_mappings_lists_and_tuples():
    a, b, c = torch.zeros(2), torch.ones(3), torch.arange(4)
    found = list(iter_tensors({"x": a, "rest": [b, (c, "not a tensor", 3)], "n": 5}))
    assert [t is expected for t, expected in zip(found, (a, b, c))] == [True, True, True] and len(found) == 3


def test_no_tensor_gives_nothing():
    assert list(iter_tensors({"n": 1, "s": "x", "l": [None]})) == []
    assert list(iter_tensors(None)) == []


def test_views_of_one_buffer_share_a_key_and_other_buffers_do_not():
    x = torch.zeros(8)
    assert storage_key(x) == storage_key(x[2:]) == storage_key(x.view(2, 4).t())
    assert storage_key(x) != storage_key(x.clone())
    assert storage_key(x)[0] == "cpu"
