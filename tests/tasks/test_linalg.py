"""Chunked batched linear algebra for task checks."""

from __future__ import annotations

import torch

from kbx.tasks.linalg import in_chunks


def test_chunks_give_what_one_call_gives():
    a = torch.randn(10, 3, 5, 4, dtype=torch.float64)
    whole = torch.linalg.svdvals(a).reshape(-1, 4)
    assert torch.equal(in_chunks(torch.linalg.svdvals, a, chunk=7), whole)
    assert torch.equal(in_chunks(torch.linalg.svdvals, a, chunk=1000), whole)
    gram = a.mT @ a
    assert torch.allclose(in_chunks(torch.linalg.eigvalsh, gram, chunk=4), torch.linalg.eigvalsh(gram).reshape(-1, 4))
