"""The `reference` method: each task's own solution.py as its one candidate."""

from __future__ import annotations

import dataclasses

import pytest

from kbx.candidates.policy import Policy
from kbx.errors import KbxError
from kbx.generate.settings import GenerationSettings
from kbx.methods import get_method
from kbx.tasks.registry import open_suite
from tests.tasks.kernelbench.problems import FIXTURES


def test_each_task_gets_its_solution_as_its_candidate(suite):
    tasks = [suite["relu"], suite["softmax"]]
    pairs = get_method("reference").candidates(tasks)
    assert [task.name for task, _ in pairs] == ["relu", "softmax"]
    for task, candidate in pairs:
        assert candidate.task == task.name
        assert candidate.code == task.solution_file.read_text()
        assert candidate.problem is None
        assert dict(candidate.provenance) == {"method": "reference", "path": str(task.solution_file)}
        assert candidate.policy is Policy.KERNEL


def test_a_missing_solution_is_a_candidate_with_a_problem_not_an_exception(suite, tmp_path):
    orphan = dataclasses.replace(suite["relu"], path=tmp_path / "relu")
    [(_, candidate)] = get_method("reference").candidates([orphan])
    assert candidate.code is None
    assert candidate.problem == f"{tmp_path / 'relu' / 'solution.py'} is missing"


def test_it_asks_no_model():
    reference = get_method("reference")
    assert reference.settings(None) is None
    with pytest.raises(KbxError, match="asks no model"):
        reference.settings(GenerationSettings("replay:x.jsonl"))


def test_a_kernelbench_problem_gets_its_own_model_as_modelnew_under_the_reference_code_policy():
    tasks = list(open_suite(f"kernelbench:{FIXTURES}", 2).tasks)
    [(task, candidate)] = get_method("reference").candidates(tasks)
    source = task.path.read_text()
    assert candidate.code == source.replace("class Model(", "class ModelNew(")
    assert candidate.policy is Policy.REFERENCE_CODE and candidate.problem is None
    assert dict(candidate.provenance) == {"method": "reference", "path": str(task.path), "own_code": True}
