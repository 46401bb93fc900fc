"""Methods as a registry: one module and one decorator add a method; the CLI and `kbx.run` resolve the same
defaults and refuse the same options."""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import MappingProxyType

import pytest

import kbx
from kbx.candidates.source import Candidate
from kbx.cli import main
from kbx.errors import KbxError
from kbx.methods import Method, get_method, method, method_names, registry
from kbx.store.db import Store
from kbx.tasks.spec import Task

from ..generate.replies import CORRECT


@pytest.fixture
def doubled_reference():
    """A method of the test's own: each task's solution, twice (two candidates a task)."""

    @method("twice")
    class Twice(Method):
        summary = "each solution twice"

        def candidates(self, tasks: Sequence[Task]) -> list[tuple[Task, Candidate]]:
            return [(task, Candidate(f"{task.name}-{i}.py", task.name, task.solution_file.read_text(),
                                     provenance=MappingProxyType({"method": "twice", "copy": i})))
                    for task in tasks for i in range(2)]

    yield Twice
    del registry._METHODS["twice"]


def test_a_method_added_by_one_decorator_runs_from_python_and_the_cli(doubled_reference, tmp_path):
    assert "twice" in method_names()
    result = kbx.run("twice", tasks=["relu"], device="cpu", out_dir=tmp_path / "api", store=tmp_path / "k.db")
    rows = sorted((r["candidate"], r["status"]) for r in result.rows)
    assert rows == [("relu-0.py", "PASSED"), ("relu-1.py", "PASSED")]
    assert main(["run", "--method", "twice", "--tasks", "relu", "--device", "cpu", "--out", str(tmp_path / "cli"),
                 "--store", str(tmp_path / "k.db")]) == 0


def test_an_unknown_method_is_one_line_naming_the_closest():
    """Each built-in method's own defaults and refusals: tests/methods/test_<method>.py."""
    with pytest.raises(KbxError, match=r"unknown method 'refin' \(did you mean refine\?\); available: .*oneshot"):
        get_method("refin")


def test_a_second_method_of_the_same_name_is_refused(doubled_reference):
    with pytest.raises(ValueError, match="'twice' is registered already"):
        method("twice")(doubled_reference)


def test_refine_from_python_is_refine_from_the_cli(tmp_path):
    """The same replayed reply, refine run from `kbx.run` and from `kbx run`: the stored settings are equal."""
    replies = tmp_path / "replies.jsonl"
    replies.write_text(json.dumps({"task": "relu", "response": CORRECT}) + "\n")
    store = tmp_path / "k.db"
    api = kbx.run("refine", model=f"replay:{replies}", tasks=["relu"], device="cpu", out_dir=tmp_path / "a",
                  store=store)
    assert main(["run", "--method", "refine", "--model", f"replay:{replies}", "--tasks", "relu", "--device", "cpu",
                 "--out", str(tmp_path / "b"), "--store", str(store), "--no-cache"]) == 0
    with Store(store) as opened:
        runs = [opened.run(r.run_id) for r in opened.runs()]
    settings = [info.config["generation"] for info in runs]
    assert len(settings) == 2 and settings[0] == settings[1] and settings[0]["iterations"] == 4
    assert [r["status"] for r in api.rows] == ["PASSED"]


def test_python_options_are_checked_as_the_cli_checks_them(tmp_path):
    with pytest.raises(KbxError, match="only for a method that asks a model"):
        kbx.run("reference", samples=2, tasks=["relu"], device="cpu", out_dir=tmp_path)
    with pytest.raises(TypeError, match="no_such_option"):
        kbx.run("reference", no_such_option=1)
