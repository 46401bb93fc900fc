"""One rule for the best candidate: the report's outcome per task and a refine chain's best agree."""

from kbx.analysis.data import Record, task_outcomes
from kbx.generate.methods import better
from kbx.ranking import rank


def _row(candidate, status, speedup=None, call_ok=None):
    return {"task": "relu", "category": "Activation", "candidate": candidate, "candidate_hash": candidate,
            "status": status, "call_ok": status in ("PASSED", "MISMATCH") if call_ok is None else call_ok,
            "exe_ok": status == "PASSED", "speedup_eager": speedup, "provenance": {"sample": 0}}


def test_correct_then_ran_then_faster():
    rows = [_row("crashed", "CRASHED"), _row("wrong", "MISMATCH"), _row("slow", "PASSED", 0.9),
            _row("fast", "PASSED", 2.0), _row("untimed", "PASSED")]
    assert [r["candidate"] for r in sorted(rows, key=rank, reverse=True)] == [
        "fast", "slow", "untimed", "wrong", "crashed"]


def test_the_report_and_a_refine_chain_pick_the_same_candidate():
    rows = [_row("a", "MISMATCH"), _row("b", "PASSED", 1.5), _row("c", "PASSED", 1.2), _row("d", "RUNTIME_ERROR")]
    chain_best = None
    for row in rows:
        chain_best = better(chain_best, row)
    (outcome,) = task_outcomes([Record.from_row("r", row) for row in rows], {"relu": "Activation"})
    assert chain_best["candidate"] == "b" and outcome.status == "PASSED" and outcome.speedup_eager == 1.5
