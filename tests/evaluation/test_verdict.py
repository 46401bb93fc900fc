"""Verdict values cross processes as JSON and come back equal."""

from __future__ import annotations

import json

from kbx.evaluation.verdict import Comparison, Mismatch
from kbx.status import Status


def test_a_comparison_survives_json_with_its_mismatches():
    comparison = Comparison(Status.MISMATCH, "2 of 9 elements differ", max_abs_error=0.5, max_rel_error=1.0,
                            mismatches=2, total=9, first=(Mismatch((0, 1), 1.5, 1.0), Mismatch((2, 2), 0.0, 0.5)),
                            against="float64")
    back = Comparison.from_json(json.loads(json.dumps(comparison.to_json())))
    assert back == comparison
    assert isinstance(back.status, Status) and isinstance(back.first[0].index, tuple)


def test_a_passed_comparison_needs_only_its_status():
    assert Comparison.from_json({"status": "PASSED"}) == Comparison(Status.PASSED)
