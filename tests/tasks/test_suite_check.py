"""The status each of the suite's own candidates is expected to get."""

from __future__ import annotations

import pytest

from kbx.status import Status
from kbx.tasks.suite_check import expected_status


def test_a_solution_is_expected_to_pass(tmp_path):
    (tmp_path / "solution.py").write_text('EXPECT = "MISMATCH"\n')  # the name decides, not a literal in it
    assert expected_status(tmp_path / "solution.py") == "PASSED"


def test_a_wrong_candidate_declares_its_status(tmp_path):
    path = tmp_path / "no_tail_mask.py"
    path.write_text('"""Forgets the mask."""\nimport triton\n\nEXPECT = "MISMATCH"\n')
    assert expected_status(path) == "MISMATCH"


def test_a_wrong_candidate_without_a_declaration_is_an_error(tmp_path):
    path = tmp_path / "no_tail_mask.py"
    path.write_text('def f():\n    EXPECT = "MISMATCH"\n')  # only a top-level EXPECT counts
    with pytest.raises(ValueError, match="has no top-level EXPECT"):
        expected_status(path)


def test_every_wrong_candidate_of_the_suite_declares_a_status_that_exists(suite):
    statuses = {s.value for s in Status}
    for task in suite.values():
        for path in task.wrong_files():
            assert expected_status(path) in statuses - {"PASSED"}, path
