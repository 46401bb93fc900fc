"""The SQLite store (DESIGN §7): runs, candidates and evaluations, append-only, schema-versioned.

Every write is one transaction, so a process killed at any moment leaves each evaluation either fully stored or
absent; a resumed run skips the (task, candidate) pairs it already has, and the `UNIQUE` key makes a second copy
impossible even if two writers raced. Nothing is ever updated or deleted: a run's end (and its secret seed) is a
row of its own in `run_ends`. Generation methods add `generations` (version 2): one row per model call with its
conversation, reply and tokens, so a resumed run re-uses what a model already said.

Only the standard library is used, so the store works on the GPU machine too.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbx.errors import KbxError

SCHEMA_VERSION = 3

_MIGRATIONS: dict[int, str] = {
    1: """
    CREATE TABLE runs (
        run_id TEXT PRIMARY KEY,
        created_at REAL NOT NULL,
        method TEXT NOT NULL,
        model TEXT,
        device TEXT NOT NULL,
        git_sha TEXT,
        harness TEXT NOT NULL,
        config_json TEXT NOT NULL,
        environment_json TEXT NOT NULL
    );
    CREATE TABLE run_secrets (
        run_id TEXT PRIMARY KEY REFERENCES runs(run_id),
        secret_seed INTEGER NOT NULL
    );
    CREATE TABLE run_ends (
        run_id TEXT NOT NULL REFERENCES runs(run_id),
        ended_at REAL NOT NULL,
        elapsed_s REAL NOT NULL,
        evaluations INTEGER NOT NULL
    );
    CREATE TABLE candidates (
        hash TEXT PRIMARY KEY,
        task TEXT NOT NULL,
        code TEXT,
        first_seen REAL NOT NULL
    );
    CREATE TABLE evaluations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL REFERENCES runs(run_id),
        task TEXT NOT NULL,
        candidate TEXT NOT NULL,
        candidate_hash TEXT NOT NULL,
        status TEXT NOT NULL,
        cache_key TEXT NOT NULL,
        cached_from TEXT,
        created_at REAL NOT NULL,
        provenance_json TEXT NOT NULL,
        row_json TEXT NOT NULL,
        UNIQUE (run_id, task, candidate)
    );
    CREATE INDEX evaluations_by_key ON evaluations(cache_key);
    """,
    2: """
    CREATE TABLE generations (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL REFERENCES runs(run_id),
        task TEXT NOT NULL,
        sample INTEGER NOT NULL,
        iteration INTEGER NOT NULL,
        candidate TEXT NOT NULL,
        candidate_hash TEXT NOT NULL,
        parent_hash TEXT,
        provider TEXT NOT NULL,
        model TEXT,
        messages_json TEXT NOT NULL,
        reply TEXT NOT NULL,
        finish_reason TEXT,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        cost_usd REAL,
        attempts INTEGER NOT NULL,
        latency_s REAL NOT NULL,
        raw_json TEXT NOT NULL,
        created_at REAL NOT NULL,
        UNIQUE (run_id, task, sample, iteration)
    );
    """,
    3: """
    CREATE TABLE first_parts (
        run_id TEXT NOT NULL REFERENCES runs(run_id),
        task TEXT NOT NULL,
        candidate TEXT NOT NULL,
        cache_key TEXT NOT NULL,
        row_json TEXT NOT NULL,
        created_at REAL NOT NULL,
        UNIQUE (run_id, task, candidate)
    );
    """,
}
"""Schema version -> the SQL that brings version - 1 up to it. Add a version, never edit an old one."""


@dataclass(frozen=True)
class RunInfo:
    """One run as stored."""

    run_id: str
    created_at: float
    method: str
    model: str | None
    device: str
    git_sha: str | None
    harness: str
    config: dict[str, Any]
    environment: dict[str, Any]
    ended_at: float | None
    secret_seed: int | None
    """Known once the run has ended; None while it is unfinished."""
    evaluations: int

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "created_at": self.created_at, "method": self.method, "model": self.model,
            "device": self.device, "git_sha": self.git_sha, "harness": self.harness, "config": self.config,
            "environment": self.environment, "ended_at": self.ended_at, "finished": self.ended_at is not None,
            "secret_seed": self.secret_seed, "evaluations": self.evaluations,
        }


class Store:
    """One SQLite file. Safe to share between threads of one process: every use of its one connection, reads as well
    as transactions, holds a lock. One connection cannot hold two transactions at once, and on Python 3.12 two threads
    reading through it at once fail ("bad parameter or other API misuse", a row read short: seen at the start of a
    resumed `kbx run --jobs 8`)."""

    def __init__(self, path: Path | str | None = None) -> None:
        """Open (or create) the store at `path` (None: `kbx.store.default_store_path()`). Raises KbxError, in one
        line, where `path` is a directory, not a SQLite database, or cannot be written."""
        from kbx.store import default_store_path

        self.path = Path(path) if path is not None else default_store_path()
        if self.path.is_dir():
            raise KbxError(f"the store {self.path} is a directory; --store takes a database file")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._lock = threading.Lock()
            self._migrate()
        except (sqlite3.DatabaseError, OSError) as exc:  # OperationalError is a DatabaseError
            raise KbxError(f"the store {self.path} cannot be used: {exc} (is it a kbx SQLite database?)") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _select(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        """Every row of a query, read under the lock."""
        return self._select_named(sql, params)[1]

    def _select_named(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[list[str], list[Any]]:
        """The column names and every row of a query, read under the lock."""
        with self._lock:
            cursor = self._db.execute(sql, params)
            return [d[0] for d in cursor.description], cursor.fetchall()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _migrate(self) -> None:
        with self._transaction() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise KbxError(f"{self.path} has schema version {version}; this kbx reads up to {SCHEMA_VERSION}")
            for target in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _MIGRATIONS[target].split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {target}")

    # --- writing -------------------------------------------------------------------------------------------

    def begin_run(
        self, run_id: str, *, method: str, model: str | None, device: str, git_sha: str | None, harness: str,
        config: dict[str, Any], environment: dict[str, Any], secret_seed: int,
    ) -> None:
        with self._transaction() as db:
            db.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, time.time(), method, model, device, git_sha, harness, json.dumps(config),
                 json.dumps(environment)),
            )
            db.execute("INSERT INTO run_secrets VALUES (?, ?)", (run_id, secret_seed))

    def end_run(self, run_id: str, elapsed_s: float) -> None:
        with self._transaction() as db:
            count = db.execute("SELECT COUNT(*) FROM evaluations WHERE run_id = ?", (run_id,)).fetchone()[0]
            db.execute("INSERT INTO run_ends VALUES (?, ?, ?, ?)", (run_id, time.time(), elapsed_s, count))

    def add_evaluation(
        self, run_id: str, row: dict[str, Any], code: str | None, cache_key: str, cached_from: str | None = None
    ) -> bool:
        """Store one evaluation (its results.jsonl row) and its candidate; False if the run already had it."""
        with self._transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO candidates VALUES (?, ?, ?, ?)",
                (row["candidate_hash"], row["task"], code, time.time()),
            )
            cursor = db.execute(
                "INSERT OR IGNORE INTO evaluations (run_id, task, candidate, candidate_hash, status, cache_key, "
                "cached_from, created_at, provenance_json, row_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, row["task"], row["candidate"], row["candidate_hash"], row["status"], cache_key,
                 cached_from, time.time(), json.dumps(row.get("provenance", {})), json.dumps(row)),
            )
            return cursor.rowcount == 1

    def add_first_part(self, run_id: str, row: dict[str, Any], cache_key: str) -> None:
        """Keep the passing correctness part of a two-part evaluation (`kbx.running.writer`) until its timing part
        is stored: a resumed run times it without checking it again."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO first_parts VALUES (?, ?, ?, ?, ?, ?)",
                       (run_id, row["task"], row["candidate"], cache_key, json.dumps(row), time.time()))

    def first_part(self, run_id: str, task: str, candidate: str, cache_key: str) -> dict[str, Any] | None:
        """The run's kept correctness part of (task, candidate), if it was kept under the same cache key."""
        found = self._select(
            "SELECT row_json FROM first_parts WHERE run_id = ? AND task = ? AND candidate = ? AND cache_key = ?",
            (run_id, task, candidate, cache_key),
        )
        return json.loads(found[0][0]) if found else None

    def add_generation(self, run_id: str, generation: dict[str, Any]) -> bool:
        """Store one model call (`kbx.generate.record.Generation.to_json()`); False if the run already had it."""
        g = generation
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO generations (run_id, task, sample, iteration, candidate, candidate_hash, "
                "parent_hash, provider, model, messages_json, reply, finish_reason, prompt_tokens, "
                "completion_tokens, cost_usd, attempts, latency_s, raw_json, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, g["task"], g["sample"], g["iteration"], g["candidate"], g["candidate_hash"],
                 g["parent_hash"], g["provider"], g["model"], json.dumps(g["messages"]), g["reply"],
                 g["finish_reason"], g["usage"]["prompt_tokens"], g["usage"]["completion_tokens"],
                 g["usage"]["cost_usd"], g["attempts"], g["latency_s"], json.dumps(g["raw"]), time.time()),
            )
            return cursor.rowcount == 1

    # --- reading -------------------------------------------------------------------------------------------

    def secret_seed(self, run_id: str) -> int | None:
        """The run's secret seed, for resuming it (the runner's use only; reports show it once the run ended)."""
        found = self._select("SELECT secret_seed FROM run_secrets WHERE run_id = ?", (run_id,))
        return int(found[0][0]) if found else None

    def done(self, run_id: str) -> set[tuple[str, str]]:
        """The (task, candidate) pairs the run has evaluated."""
        rows = self._select("SELECT task, candidate FROM evaluations WHERE run_id = ?", (run_id,))
        return {(task, candidate) for task, candidate in rows}

    def durations(self, device: str) -> dict[str, float]:
        """Per task, the wall time of its latest evaluation on `device` ("cpu", "cuda") that was not served from
        cache, for scheduling the longest first."""
        # SQLite's JSON functions reject the NaN and Infinity that rows may hold (json.dumps writes them): those
        # few rows are read whole in Python.
        found = self._select(
            "SELECT e.task, CASE WHEN json_valid(e.row_json) THEN json_extract(e.row_json, '$.elapsed_s') END, "
            "CASE WHEN json_valid(e.row_json) THEN NULL ELSE e.row_json END "
            "FROM evaluations e JOIN runs r USING (run_id) WHERE r.device = ? AND e.cached_from IS NULL ORDER BY e.id",
            (device,),
        )
        durations: dict[str, float] = {}
        for task, elapsed, unparsed in found:
            if unparsed is not None:
                elapsed = json.loads(unparsed).get("elapsed_s")
            if elapsed is not None:
                durations[task] = float(elapsed)
        return durations

    def cached(self, cache_key: str) -> tuple[str, dict[str, Any]] | None:
        """The earliest stored evaluation with this cache key not itself served from cache: (its run, its row)."""
        found = self._select(
            "SELECT run_id, row_json FROM evaluations WHERE cache_key = ? AND cached_from IS NULL ORDER BY id LIMIT 1",
            (cache_key,),
        )
        return (found[0][0], json.loads(found[0][1])) if found else None

    def code(self, candidate_hash: str) -> str | None:
        """The candidate's source as stored (None when it had none, e.g. a reply with no code block)."""
        found = self._select("SELECT code FROM candidates WHERE hash = ?", (candidate_hash,))
        return found[0][0] if found else None

    def rows(self, run_id: str) -> list[dict[str, Any]]:
        """The run's results.jsonl rows, in the order they were stored, each with `cached_from`."""
        found = self._select("SELECT row_json, cached_from FROM evaluations WHERE run_id = ? ORDER BY id", (run_id,))
        return [{**json.loads(row), "cached_from": cached_from} for row, cached_from in found]

    def runs(self) -> list[RunInfo]:
        ids = [r[0] for r in self._select("SELECT run_id FROM runs ORDER BY created_at, run_id")]
        return [self.run(run_id) for run_id in ids]

    def run(self, run_id: str) -> RunInfo:
        """One run by id, unique id prefix, or `latest` (the one started last)."""
        if run_id == "latest":
            newest = self._select("SELECT run_id FROM runs ORDER BY created_at DESC, rowid DESC LIMIT 1")
            if not newest:
                raise KbxError(f"no run in {self.path} yet")
            run_id = newest[0][0]
        matches = self._select(
            "SELECT * FROM runs WHERE run_id = ? OR run_id LIKE ? ORDER BY run_id = ? DESC",
            (run_id, f"{run_id}%", run_id),
        )
        if not matches or (len(matches) > 1 and matches[0][0] != run_id):
            raise KbxError(f"no run {run_id!r} in {self.path}" if not matches else f"run id {run_id!r} is ambiguous")
        rid, created, method, model, device, sha, harness, config, environment = matches[0]
        end = self._select("SELECT MAX(ended_at) FROM run_ends WHERE run_id = ?", (rid,))[0][0]
        count = self._select("SELECT COUNT(*) FROM evaluations WHERE run_id = ?", (rid,))[0][0]
        return RunInfo(
            rid, created, method, model, device, sha, harness, json.loads(config), json.loads(environment), end,
            self.secret_seed(rid) if end is not None else None, count,
        )

    def usage(self, run_id: str) -> dict[str, Any]:
        """Model calls, tokens and cost of the run's stored generations; the cost is None when any call was unpriced
        (or there were none)."""
        calls, prompt, completion, cost, priced = self._select(
            "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), SUM(cost_usd), "
            "COUNT(cost_usd) FROM generations WHERE run_id = ?", (run_id,))[0]
        return {"model_calls": calls, "prompt_tokens": prompt, "completion_tokens": completion,
                "cost_usd": round(cost, 6) if calls and priced == calls else None}

    def generations(self, run_id: str) -> list[dict[str, Any]]:
        """The run's model calls in the order they were stored, as `add_generation` took them."""
        names, rows = self._select_named("SELECT * FROM generations WHERE run_id = ? ORDER BY id", (run_id,))
        found = []
        for values in rows:
            g = dict(zip(names, values))
            usage = {k: g.pop(k) for k in ("prompt_tokens", "completion_tokens", "cost_usd")}
            found.append({**g, "messages": json.loads(g.pop("messages_json")), "raw": json.loads(g.pop("raw_json")),
                          "usage": usage})
        return found
