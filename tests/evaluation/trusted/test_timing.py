"""The trusted worker's baselines: a task's own `baseline` is what is timed as eager and compiled for torch.compile,
it is judged against the reference before it is timed, and both run with the precision the contract allows."""

from dataclasses import replace

import pytest
import torch

from kbx.evaluation.trusted.worker import _State
from kbx.tasks.meta import read_task
from kbx.tasks.module import import_task
from kbx.tasks.registry import default_suite_root

RELU = read_task(default_suite_root() / "Activation" / "relu")
MATMUL_TF32 = read_task(default_suite_root() / "MatrixMultiply" / "matmul_tf32")
SLOTS = [{"case": {"workload": "smoke", "role": "smoke", "dtype": dtype}, "seeds": [11, 12, 13]}
         for dtype in ("float32", "float16")]


def _state_with(monkeypatch, code) -> _State:
    """A CPU trusted worker serving `code` for every task folder, its compiled baselines their own eager ones."""
    state = _State("cpu")
    monkeypatch.setattr(state, "_task_code", lambda folder: code)
    monkeypatch.setattr(state, "_compiled", lambda code, case: code.eager)
    return state


def test_prepare_judges_a_tasks_own_baseline_against_the_reference(monkeypatch):
    code = import_task(RELU)
    good = _state_with(monkeypatch, replace(code, baseline=lambda input: torch.clamp(input, min=0)))
    assert [sorted(answer) for answer in good.prepare(str(RELU.path), SLOTS)] == [["bytes", "flops"]] * 2


def test_a_baseline_that_computes_something_else_or_fails_is_reported_for_eager_and_compile(monkeypatch):
    code = import_task(RELU)
    off = _state_with(monkeypatch, replace(code, baseline=lambda input: torch.relu(input) * 1.01))
    for answer in off.prepare(str(RELU.path), SLOTS):
        assert answer["eager_differs"].startswith("MISMATCH") and answer["compile_differs"].startswith("MISMATCH")

    def broken(input):
        raise RuntimeError("no kernel for this shape")

    failing = _state_with(monkeypatch, replace(code, baseline=broken))
    answer = failing.prepare(str(RELU.path), SLOTS[:1])[0]
    assert "no kernel for this shape" in answer["eager_error"] and "no kernel" in answer["compile_error"]


def test_without_a_baseline_only_the_compiled_reference_is_judged(monkeypatch):
    state = _state_with(monkeypatch, import_task(RELU))
    monkeypatch.setattr(state, "_compiled", lambda code, case: lambda input: input)
    (answer,) = state.prepare(str(RELU.path), SLOTS[:1])
    assert "eager_differs" not in answer and answer["compile_differs"].startswith("MISMATCH")


def test_torch_compile_is_given_the_tasks_baseline(monkeypatch):
    code = import_task(MATMUL_TF32)
    compiled = []
    monkeypatch.setattr(torch, "compile", lambda fn, **options: compiled.append(fn) or fn)
    state = _State("cpu")
    case = {"workload": "bench_square", "role": "bench", "dtype": "float32"}
    assert state._timed_function(code, case, "eager") is code.baseline
    state._timed_function(code, case, "compile")
    assert compiled[0].__code__.co_name == "baseline" and compiled[0].__code__ is not code.baseline.__code__


@pytest.mark.parametrize("kind", ["eager", "compile"])
def test_both_baselines_of_a_tf32_contract_are_timed_with_tf32_allowed_and_the_flags_put_back(monkeypatch, kind):
    from kbx.timing import measure

    code = import_task(MATMUL_TF32)
    state = _state_with(monkeypatch, code)
    inputs = code.make_inputs(MATMUL_TF32.workload("smoke"), "float32", torch.Generator().manual_seed(0))
    monkeypatch.setattr(state, "_timing_sets", lambda code, case, seeds: [inputs])
    seen = []

    class Timed:
        def to_json(self):
            return {"samples_ms": [1.0]}

    def time_call(fn, sets, **settings):
        fn(**sets[0])
        seen.append((torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32))
        return Timed()

    monkeypatch.setattr(measure, "time_call", time_call)
    before = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    case = {"workload": "smoke", "role": "smoke", "dtype": "float32"}
    assert state.baseline(str(MATMUL_TF32.path), case, [1], {}, kind) == {"samples_ms": [1.0]}
    assert seen == [(True, True)]
    assert (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32) == before
