"""The offending elements both judges name (`kbx.evaluation.trusted.mismatches`)."""

from __future__ import annotations

import torch

from kbx.evaluation.trusted.mismatches import FIRST, note_first, unravel


def test_the_first_few_hits_of_each_chunk_are_noted_with_their_flat_position_and_all_are_counted():
    first: list = []
    got, expected = torch.arange(10.0), torch.zeros(10)
    assert note_first(first, 100, got > 6, got, expected) == 3
    assert [(m.index, m.got, m.expected) for m in first] == [((107,), 7.0, 0.0), ((108,), 8.0, 0.0), ((109,), 9.0, 0.0)]
    assert note_first(first, 200, got >= 0, got, expected) == 10  # every hit counted, only FIRST named in all
    assert len(first) == FIRST and first[-1].index == (201,)
    assert note_first(first, 300, got < 0, got, expected) == 0


def test_a_flat_position_is_unravelled_row_major():
    assert unravel(0, (2, 3, 4)) == (0, 0, 0)
    assert unravel(23, (2, 3, 4)) == (1, 2, 3)
    assert unravel(13, (2, 3, 4)) == (1, 0, 1)
    assert unravel(5, ()) == ()
