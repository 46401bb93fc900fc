"""A timed run on GPUs in two parts: every candidate's correctness first, then bench cases and timing for those
that passed (`kbx.running.two_part_run.evaluate_in_two_parts`), driven with fake evaluators (no GPU)."""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass, field

from kbx.candidates.source import Candidate
from kbx.evaluation.bench_inputs import TimingSettings
from kbx.evaluation.result import CaseResult, Evaluation
from kbx.running.two_part_run import evaluate_in_two_parts
from kbx.running.writer import Writer
from kbx.status import Status
from kbx.store.db import Store


@dataclass
class FakeEvaluator:
    failing: set[str]
    device: str = "cuda"
    timing: TimingSettings = field(default_factory=TimingSettings)
    environment: dict = field(default_factory=lambda: {"gpu": "fake"})
    log: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def evaluate(self, task, candidate, part="all"):
        with self.lock:
            self.log.append((part, task.name))
        failed = part == "correctness" and task.name in self.failing
        case = CaseResult(0, "bench" if part == "timing" else "smoke", "float32", part == "timing",
                          Status.MISMATCH if failed else Status.PASSED, role="bench" if part == "timing" else "smoke")
        return Evaluation(
            task=task.name, category=task.category, candidate=candidate.name, candidate_hash=candidate.hash,
            status=case.status, message="wrong" if failed else "", stage="correctness", device=self.device,
            task_version=task.version, cases=(case,), elapsed_s=1.0, phases={"cases": 1.0},
            performance={"speedup_eager": 2.0} if part == "timing" else None,
        )


def test_every_correctness_part_runs_before_any_timing_and_the_parts_are_joined(tmp_path, suite):
    names = ["relu", "gelu", "add", "erf", "sum"]
    pairs = [(suite[n], Candidate(f"{n}.py", n, f"# {n}\n")) for n in names]
    log: list[tuple[str, str]] = []  # shared, so it is in the order the parts ran on either evaluator
    lock = threading.Lock()
    evaluators = [FakeEvaluator(failing={"gelu"}, log=log, lock=lock) for _ in range(2)]
    with Store(tmp_path / "k.db") as store:
        store.begin_run("r1", method="test", model=None, device="cuda", git_sha=None, harness="h", config={},
                        environment={}, secret_seed=1)
        progress = io.StringIO()
        writer = Writer(store, "r1", len(pairs), progress, use_cache=True)
        evaluations = evaluate_in_two_parts(evaluators, pairs, writer, jobs=2)
        rows = {r["task"]: r for r in store.rows("r1")}
    lines = progress.getvalue().splitlines()  # each passing first part is reported as it is kept, before any timing
    assert sum("CORRECT" in line for line in lines[:5]) == 4 and all("[checked" not in line for line in lines[5:])
    parts = [part for part, _ in log]
    assert parts == ["correctness"] * len(names) + ["timing"] * (len(names) - 1)
    assert sorted(n for part, n in log if part == "timing") == sorted(set(names) - {"gelu"})
    assert len(evaluations) == len(rows) == len(names)
    assert rows["gelu"]["status"] == "MISMATCH" and rows["gelu"]["speedup_eager"] is None
    assert [c["role"] for c in rows["relu"]["cases"]] == ["smoke", "bench"]
    assert rows["relu"]["speedup_eager"] == 2.0 and rows["relu"]["elapsed_s"] == 2.0
    assert rows["relu"]["phases"] == {"cases": 2.0}


def test_a_cached_pair_is_not_evaluated_again(tmp_path, suite):
    pairs = [(suite["relu"], Candidate("relu.py", "relu", "# relu\n"))]
    evaluator = FakeEvaluator(failing=set())
    with Store(tmp_path / "k.db") as store:
        for run in ("r1", "r2"):
            store.begin_run(run, method="test", model=None, device="cuda", git_sha=None, harness="h", config={},
                            environment={}, secret_seed=1)
            evaluate_in_two_parts([evaluator], pairs, Writer(store, run, 1, None, use_cache=True), jobs=1)
        assert store.rows("r2")[0]["cached_from"] == "r1"
    assert [part for part, _ in evaluator.log] == ["correctness", "timing"]


def test_a_resumed_run_times_what_its_interrupted_first_run_had_checked(tmp_path, suite):
    pairs = [(suite[n], Candidate(f"{n}.py", n, f"# {n}\n")) for n in ("relu", "gelu")]
    first, second = FakeEvaluator(failing=set()), FakeEvaluator(failing=set())
    with Store(tmp_path / "k.db") as store:
        store.begin_run("r1", method="test", model=None, device="cuda", git_sha=None, harness="h", config={},
                        environment={}, secret_seed=1)
        writer = Writer(store, "r1", 2, None, use_cache=True)
        for task, candidate in pairs:  # interrupted after every correctness part, before any timing
            assert writer.correctness_part(first, task, candidate)[1] is False
        assert store.rows("r1") == []
        evaluate_in_two_parts([second], pairs, Writer(store, "r1", 2, None, use_cache=True), jobs=1)
        rows = {r["task"]: r for r in store.rows("r1")}
    assert [part for part, _ in second.log] == ["timing", "timing"]
    assert [c["role"] for c in rows["relu"]["cases"]] == ["smoke", "bench"] and rows["gelu"]["speedup_eager"] == 2.0
