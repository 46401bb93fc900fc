import sqlite3
from concurrent.futures import ThreadPoolExecutor

import pytest

from kbx.errors import KbxError
from kbx.generate.methods import Generation
from kbx.generate.providers import Message, Usage
from kbx.store.db import _MIGRATIONS, SCHEMA_VERSION, Store


def _row(task="relu", candidate="a.py", status="PASSED", hash_="h1"):
    return {"task": task, "category": "Activation", "candidate": candidate, "candidate_hash": hash_,
            "status": status, "call_ok": True, "exe_ok": status == "PASSED", "message": "", "elapsed_s": 1.0,
            "provenance": {"method": "test"}}


def _begin(store, run_id="run1", seed=42):
    store.begin_run(run_id, method="reference", model=None, device="cpu", git_sha="abc", harness="0.1.0+x",
                    config={"method": "reference"}, environment={"torch": "2.13"}, secret_seed=seed)


def test_a_run_round_trips_and_its_seed_shows_only_once_it_ended(tmp_path):
    with Store(tmp_path / "k.db") as store:
        _begin(store)
        assert store.add_evaluation("run1", _row(), "code", "key1")
        info = store.run("run1")
        assert info.method == "reference" and info.evaluations == 1 and info.ended_at is None
        assert info.secret_seed is None and store.secret_seed("run1") == 42
        store.end_run("run1", 3.5)
        assert store.run("ru").secret_seed == 42  # a unique prefix finds it
        assert [r["candidate"] for r in store.rows("run1")] == ["a.py"]


def test_a_pair_is_stored_once_per_run(tmp_path):
    with Store(tmp_path / "k.db") as store:
        _begin(store)
        assert store.add_evaluation("run1", _row(), "code", "key1")
        assert not store.add_evaluation("run1", _row(status="MISMATCH"), "code", "key1")
        assert [r["status"] for r in store.rows("run1")] == ["PASSED"]
        assert store.done("run1") == {("relu", "a.py")}


def test_a_first_part_is_kept_per_run_pair_and_cache_key(tmp_path):
    with Store(tmp_path / "k.db") as store:
        _begin(store)
        assert store.first_part("run1", "relu", "a.py", "key1") is None
        store.add_first_part("run1", _row(), "key1")
        assert store.first_part("run1", "relu", "a.py", "key1") == _row()
        assert store.first_part("run1", "relu", "a.py", "key2") is None  # the task or the machine changed
        assert store.first_part("run2", "relu", "a.py", "key1") is None
        assert store.rows("run1") == []  # not an evaluation: nothing is reported from it


def test_cache_lookup_returns_the_original_evaluation_not_a_served_copy(tmp_path):
    with Store(tmp_path / "k.db") as store:
        _begin(store, "run1")
        _begin(store, "run2")
        assert store.cached("key1") is None
        store.add_evaluation("run1", _row(), "code", "key1")
        store.add_evaluation("run2", _row(candidate="b.py"), "code", "key1", cached_from="run1")
        run_id, row = store.cached("key1")
        assert run_id == "run1" and row["candidate"] == "a.py"
        assert store.rows("run2")[0]["cached_from"] == "run1"


def test_latest_is_the_run_started_last(tmp_path):
    with Store(tmp_path / "k.db") as store:
        with pytest.raises(KbxError, match="no run"):
            store.run("latest")
        _begin(store, "first")
        _begin(store, "second")
        assert store.run("latest").run_id == "second"


def test_unknown_and_ambiguous_runs_are_user_errors(tmp_path):
    with Store(tmp_path / "k.db") as store:
        _begin(store, "abc1")
        _begin(store, "abc2")
        with pytest.raises(KbxError, match="no run"):
            store.run("zzz")
        with pytest.raises(KbxError, match="ambiguous"):
            store.run("abc")


def test_schema_is_versioned_and_a_newer_store_is_refused(tmp_path):
    path = tmp_path / "k.db"
    Store(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(KbxError, match="schema version"):
        Store(path)


def test_reopening_keeps_everything(tmp_path):
    with Store(tmp_path / "k.db") as store:
        _begin(store)
        store.add_evaluation("run1", _row(), "code", "key1")
    with Store(tmp_path / "k.db") as store:
        assert store.run("run1").evaluations == 1


def test_a_candidates_source_is_read_back_by_hash(tmp_path):
    with Store(tmp_path / "k.db") as store:
        _begin(store)
        store.add_evaluation("run1", _row(), "def relu(x): ...", "key1")
        store.add_evaluation("run1", _row(candidate="b.py", hash_="h2"), None, "key2")
        assert store.code("h1") == "def relu(x): ..."
        assert store.code("h2") is None and store.code("unknown") is None


def test_durations_are_each_tasks_latest_own_evaluation_on_that_device(tmp_path):
    with Store(tmp_path / "k.db") as store:
        _begin(store, "run1")
        store.add_evaluation("run1", {**_row(), "elapsed_s": 5.0}, "code", "key1")
        store.add_evaluation("run1", {**_row(task="gelu"), "elapsed_s": 2.0}, "code", "key2")
        _begin(store, "run2")
        store.add_evaluation("run2", {**_row(), "elapsed_s": 7.0}, "code", "key3")
        store.add_evaluation("run2", {**_row(task="gelu"), "elapsed_s": 0.1}, "code", "key2", cached_from="run1")
        store.begin_run("gpu", method="reference", model=None, device="cuda", git_sha=None, harness="h",
                        config={}, environment={}, secret_seed=1)
        store.add_evaluation("gpu", {**_row(task="mm"), "elapsed_s": 60.0}, "code", "key4")
        store.add_evaluation("gpu", {**_row(task="qr"), "elapsed_s": 9.0, "speedup_eager": float("nan")}, "c", "k5")
        assert store.durations("cpu") == {"relu": 7.0, "gelu": 2.0}
        assert store.durations("cuda") == {"mm": 60.0, "qr": 9.0}  # a row with NaN (no valid JSON for SQLite)


def test_a_version_1_store_migrates_and_keeps_its_runs(tmp_path):
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        db.executescript(_MIGRATIONS[1])
        db.execute("INSERT INTO runs VALUES ('old', 1.0, 'reference', NULL, 'cpu', NULL, 'h', '{}', '{}')")
        db.execute("PRAGMA user_version = 1")
    with Store(path) as store:
        assert [r.run_id for r in store.runs()] == ["old"]
        assert store.generations("old") == []
        assert store.first_part("old", "relu", "a.py", "k") is None
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3


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


def test_threads_read_and_write_one_store_at_once(tmp_path):
    """A run's jobs share one Store: on Python 3.12 unlocked reads through the one connection failed ("bad parameter
    or other API misuse") when eight threads read at once, as a resumed `kbx run --jobs 8` does at its start."""
    with Store(tmp_path / "kbx.db") as store:
        store.begin_run("r1", method="reference", model=None, device="cuda", git_sha=None, harness="t", config={},
                        environment={}, secret_seed=1)
        for i in range(50):
            store.add_first_part("r1", {"task": f"t{i}", "candidate": "solution"}, f"k{i}")

        def work(i: int) -> None:
            for j in range(1500):
                task = f"t{(i + j) % 50}"
                assert store.first_part("r1", task, "solution", f"k{(i + j) % 50}")["task"] == task
                assert store.cached(f"k{j}") is None
                if j % 100 == 0:
                    store.add_first_part("r1", {"task": task, "candidate": "solution"}, f"k{(i + j) % 50}")

        with ThreadPoolExecutor(8) as pool:
            list(pool.map(work, range(8)))
