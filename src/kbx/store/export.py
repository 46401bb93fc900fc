"""Exports of a stored run: JSONL (the results.jsonl rows) and Parquet (one row per evaluation, flat columns)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kbx.errors import KbxError
from kbx.store.db import Store

FLAT_COLUMNS = ("run_id", "task", "category", "candidate", "candidate_hash", "status", "call_ok", "exe_ok", "device",
                "stage", "message", "speedup_eager", "speedup_compile", "sol_fraction", "task_version", "elapsed_s",
                "cached_from", "policy")
"""Parquet columns taken as they are; the nested rest (cases, performance, provenance, environment, kernelbench) is
JSON text."""
FLOAT_COLUMNS = ("speedup_eager", "speedup_compile", "sol_fraction", "elapsed_s")


def export_run(store: Store, run_id: str, out: Path, fmt: str) -> int:
    """Write the run's evaluations to `out`, each row carrying its `run_id` (exports of several runs concatenate);
    returns how many."""
    rows = [{"run_id": run_id, **row} for row in store.rows(run_id)]
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "jsonl":
        with open(out, "w") as sink:
            for row in rows:
                sink.write(json.dumps(row) + "\n")
    elif fmt == "parquet":
        _write_parquet(rows, out)
    else:
        raise KbxError(f"unknown export format {fmt!r}: jsonl or parquet")
    return len(rows)


def _write_parquet(rows: list[dict[str, Any]], out: Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise KbxError("Parquet export needs pyarrow: pip install pyarrow") from exc
    columns: dict[str, Any] = {name: [row.get(name) for row in rows] for name in FLAT_COLUMNS}
    for name in FLOAT_COLUMNS:  # typed even when every value is null (a CPU run), so exports concatenate
        columns[name] = pa.array(columns[name], type=pa.float64())
    for name in ("cases", "performance", "provenance", "environment", "phases", "kernelbench"):
        columns[f"{name}_json"] = [json.dumps(row.get(name)) for row in rows]
    pq.write_table(pa.table(columns), out)
