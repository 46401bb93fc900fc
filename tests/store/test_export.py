import json

import pytest

from kbx.store.db import Store
from kbx.store.export import FLAT_COLUMNS, export_run


def _store_with_one_run(path):
    store = Store(path)
    store.begin_run("run1", method="reference", model=None, device="cpu", git_sha=None, harness="h",
                    config={}, environment={}, secret_seed=1)
    row = {"task": "relu", "category": "Activation", "candidate": "a.py", "candidate_hash": "h1", "status": "PASSED",
           "call_ok": True, "exe_ok": True, "device": "cpu", "stage": "correctness", "message": "",
           "speedup_eager": None, "speedup_compile": None, "sol_fraction": None, "task_version": "v",
           "elapsed_s": 1.5, "cases": [{"workload": "smoke", "status": "PASSED"}], "provenance": {"method": "x"},
           "environment": {"torch": "2.13"}, "performance": None, "phases": {"cases": 1.0}}
    store.add_evaluation("run1", row, "code", "key")
    return store


def test_jsonl_export_is_the_stored_rows(tmp_path):
    with _store_with_one_run(tmp_path / "k.db") as store:
        assert export_run(store, "run1", tmp_path / "out.jsonl", "jsonl") == 1
    (row,) = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert row["task"] == "relu" and row["cases"][0]["workload"] == "smoke" and row["cached_from"] is None
    assert row["run_id"] == "run1"


def test_parquet_export_has_flat_columns_and_nested_json(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    with _store_with_one_run(tmp_path / "k.db") as store:
        export_run(store, "run1", tmp_path / "out.parquet", "parquet")
    table = pq.read_table(tmp_path / "out.parquet").to_pylist()
    (row,) = table
    assert set(FLAT_COLUMNS) <= set(row)
    assert row["status"] == "PASSED" and row["elapsed_s"] == 1.5 and row["run_id"] == "run1"
    assert json.loads(row["cases_json"])[0]["workload"] == "smoke"


def test_parquet_speedups_are_typed_floats_even_when_every_one_is_null(tmp_path):
    """A CPU run's export (no speedups at all) must concatenate with a GPU run's."""
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    with _store_with_one_run(tmp_path / "k.db") as store:
        export_run(store, "run1", tmp_path / "cpu.parquet", "parquet")
    schema = pq.read_schema(tmp_path / "cpu.parquet")
    assert schema.field("speedup_eager").type == pa.float64() and schema.field("sol_fraction").type == pa.float64()
