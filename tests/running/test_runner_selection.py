"""Which tasks a run takes: names, category, and a shard of them (`kbx run --shard K/N`)."""

from __future__ import annotations

from pathlib import Path

from kbx.running.runner import RunOptions, _selected
from kbx.tasks.registry import load_suite

SUITE = load_suite()


def test_the_shards_of_a_selection_split_it_without_overlap(tmp_path: Path):
    shards = [_selected(SUITE, RunOptions(out_dir=tmp_path, shard=(k, 3))) for k in range(3)]
    names = [[t.name for t in shard] for shard in shards]
    assert sorted(n for shard in names for n in shard) == sorted(t.name for t in SUITE)
    assert all(abs(len(a) - len(b)) <= 1 for a in names for b in names)
    assert names[1] == [t.name for t in SUITE[1::3]]


def test_a_shard_applies_after_the_category_and_is_kept_for_a_resume(tmp_path: Path):
    options = RunOptions(out_dir=tmp_path, category="Activation", shard=(0, 2))
    activation = [t for t in SUITE if t.category == "Activation"]
    assert _selected(SUITE, options) == activation[0::2]
    assert options.to_config()["selection"]["shard"] == [0, 2]
    assert RunOptions(out_dir=tmp_path).to_config()["selection"]["shard"] is None
