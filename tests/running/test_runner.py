"""The runner's slots for a generating method's evaluations."""

import io
from types import SimpleNamespace

import pytest

from kbx.errors import ReferenceFailed
from kbx.running.runner import RunResult, _slot_evaluate
from kbx.running.writer import Writer


def test_a_generating_runs_unjudgeable_evaluation_is_reported_and_raised_to_its_chain():
    stream = io.StringIO()
    writer = Writer(store=None, run_id="r", total=2, progress=stream, use_cache=False)
    problem = ReferenceFailed("task relu: its reference failed on bench/float32: RuntimeError: cusolver")

    def evaluate_row(evaluator, task, candidate):
        raise problem

    writer.evaluate_row = evaluate_row
    evaluate = _slot_evaluate(["gpu0"], 1, writer, RunResult(run_id="r", out_dir=None))
    with pytest.raises(ReferenceFailed):
        evaluate(SimpleNamespace(name="relu"), SimpleNamespace(name="a.py"))
    assert writer.unjudged == [str(problem)]
    assert "NOT JUDGED" in stream.getvalue() and "cusolver" in stream.getvalue()
    with pytest.raises(ReferenceFailed):  # the slot was given back: a second call does not block
        evaluate(SimpleNamespace(name="relu"), SimpleNamespace(name="b.py"))



def test_references_and_baselines_are_kept_only_where_a_task_has_a_second_candidate(suite):
    from kbx.candidates.source import Candidate
    from kbx.running.runner import _reuses

    one_each = [(suite["relu"], Candidate("a", "relu", "")), (suite["gelu"], Candidate("b", "gelu", ""))]
    assert not _reuses(one_each, None)
    assert _reuses([*one_each, (suite["relu"], Candidate("c", "relu", ""))], None)
    assert _reuses(one_each, SimpleNamespace())  # a method making candidates as it goes may make several
