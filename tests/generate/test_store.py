"""The store's generations table: a v1 store migrates keeping its data; generations round-trip."""

from __future__ import annotations

import sqlite3

from kbx.generate.methods import Generation
from kbx.generate.providers import Message, Usage
from kbx.store.db import _MIGRATIONS, SCHEMA_VERSION, Store


def _begin(store: Store, run_id: str) -> None:
    store.begin_run(run_id, method="refine", model="openai:x", device="cpu", git_sha=None, harness="h", config={},
                    environment={}, secret_seed=7)


def test_a_version_1_store_migrates_and_keeps_its_runs(tmp_path):
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        db.executescript(_MIGRATIONS[1])
        db.execute("INSERT INTO runs VALUES ('old', 1.0, 'reference', NULL, 'cpu', NULL, 'h', '{}', '{}')")
        db.execute("PRAGMA user_version = 1")
    with Store(path) as store:
        assert [r.run_id for r in store.runs()] == ["old"]
        assert store.generations("old") == []
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2


def test_generations_round_trip_and_are_stored_once(tmp_path):
    generation = Generation("relu", 1, 2, "relu#s1.i2", "abc", "parent", "openai:x", "x-2025",
                            (Message("system", "s"), Message("user", "u")), "reply", "stop", Usage(10, 20, 0.5), 2,
                            1.5, {"id": "r"})
    with Store(tmp_path / "k.db") as store:
        _begin(store, "r1")
        assert store.add_generation("r1", generation.to_json())
        assert not store.add_generation("r1", generation.to_json()), "the (run, task, sample, iteration) key"
        (stored,) = store.generations("r1")
    assert stored["messages"] == [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    assert stored["usage"] == {"prompt_tokens": 10, "completion_tokens": 20, "cost_usd": 0.5}
    assert (stored["sample"], stored["iteration"], stored["parent_hash"], stored["raw"]) == (1, 2, "parent",
                                                                                            {"id": "r"})


def test_threads_can_write_to_one_store_at_once(tmp_path):
    from concurrent.futures import ThreadPoolExecutor
    from dataclasses import replace

    generation = Generation("relu", 0, 0, "relu#s0", "abc", None, "openai:x", "x", (), "reply", None, Usage(), 1,
                            0.0)
    with Store(tmp_path / "k.db") as store:
        _begin(store, "r1")
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda i: store.add_generation("r1", replace(generation, sample=i).to_json()), range(200)))
        assert len(store.generations("r1")) == 200
