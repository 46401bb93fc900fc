"""The trusted worker's reference cache: within its budget, a task's own entries kept, other tasks' evicted first."""

from __future__ import annotations

import torch

from kbx.evaluation.protocol import JUDGES_VARIABLE
from kbx.evaluation.trusted import references
from kbx.evaluation.trusted.references import ReferenceCache

ENTRY = ([torch.zeros(256)], None)  # 1 KiB


def key(task: str, seed: int) -> references.Key:
    return (task, seed, 0, "{}", True)


def test_a_cycle_longer_than_the_cache_still_hits_on_the_entries_kept(monkeypatch):
    """A least-recently-used cache would hit on none of them."""
    monkeypatch.setattr(references, "budget", lambda device: 3 * 1024)
    cache = ReferenceCache("cpu")
    cache.keep(key("other", 0), ENTRY)
    for seed in range(4):
        cache.keep(key("relu", seed), ENTRY)
    assert [k[:2] for k in cache.entries] == [("relu", 0), ("relu", 1), ("relu", 2)]  # "other" went first
    assert cache.bytes == 3 * 1024
    for _ in range(2):  # the evaluation's cycle again: three of four hit
        assert [cache.get(key("relu", seed)) is not None for seed in range(4)] == [True, True, True, False]


def test_the_next_tasks_entries_push_out_the_last_tasks_oldest_first(monkeypatch):
    monkeypatch.setattr(references, "budget", lambda device: 3 * 1024)
    cache = ReferenceCache("cpu")
    for seed in range(3):
        cache.keep(key("relu", seed), ENTRY)
    cache.get(key("relu", 0))  # used last
    cache.keep(key("gelu", 0), ENTRY)
    assert [k[:2] for k in cache.entries] == [("relu", 2), ("relu", 0), ("gelu", 0)]


def test_an_entry_larger_than_the_budget_is_kept_alone_and_clear_empties(monkeypatch):
    monkeypatch.setattr(references, "budget", lambda device: 1024)
    cache = ReferenceCache("cpu")
    cache.keep(key("relu", 0), ([torch.zeros(4096)], None))
    assert len(cache.entries) == 1 and cache.bytes == 4 * 4096
    cache.clear()
    assert not cache.entries and cache.bytes == 0


def test_on_a_gpu_the_cache_may_take_a_quarter_of_its_memory(monkeypatch):
    class Properties:
        total_memory = 80 << 30

    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda index: Properties())
    assert references.budget("cuda") == 20 << 30
    assert references.budget("cpu") == references.FLOOR_BYTES == 4 << 30
    monkeypatch.setenv(JUDGES_VARIABLE, "2")  # two judging workers share the quarter
    assert references.budget("cuda") == 10 << 30
    monkeypatch.setenv(JUDGES_VARIABLE, "8")
    assert references.budget("cuda") == references.FLOOR_BYTES
