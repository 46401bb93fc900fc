"""Chunked batched linear algebra for task checks."""

from __future__ import annotations

import torch

from kbx.tasks.linalg import conditioned, in_chunks


def test_chunks_give_what_one_call_gives():
    a = torch.randn(10, 3, 5, 4, dtype=torch.float64)
    whole = torch.linalg.svdvals(a).reshape(-1, 4)
    assert torch.equal(in_chunks(torch.linalg.svdvals, a, chunk=7), whole)
    assert torch.equal(in_chunks(torch.linalg.svdvals, a, chunk=1000), whole)
    gram = a.mT @ a
    assert torch.allclose(in_chunks(torch.linalg.eigvalsh, gram, chunk=4), torch.linalg.eigvalsh(gram).reshape(-1, 4))


def test_conditioned_matrices_have_the_condition_number_asked_for():
    a = conditioned([3, 9, 5], 1e4, torch.Generator().manual_seed(0))
    s = torch.linalg.svdvals(a)
    assert a.dtype == torch.float64 and a.shape == (3, 9, 5)
    assert torch.allclose(s[:, 0], torch.ones(3, dtype=torch.float64))
    assert torch.allclose(s[:, -1], torch.full((3,), 1e-4, dtype=torch.float64), rtol=1e-9, atol=0.0)


def test_conditioned_matrices_repeat_from_the_same_generator_state():
    first = conditioned([2, 6, 6], 100.0, torch.Generator().manual_seed(1))
    assert torch.equal(first, conditioned([2, 6, 6], 100.0, torch.Generator().manual_seed(1)))
