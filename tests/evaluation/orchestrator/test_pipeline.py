"""The Evaluator's start: confinement is probed first, and a machine that cannot confine stops with one line."""

from __future__ import annotations

import pytest

from kbx.errors import KbxError
from kbx.evaluation.orchestrator import pipeline
from kbx.evaluation.orchestrator.sandbox import Limits
from tests.conftest import FIXTURES


def test_a_machine_that_cannot_confine_stops_before_any_worker_starts(monkeypatch):
    monkeypatch.setattr(pipeline, "unavailable", lambda spec: "PermissionError: unshare: Operation not permitted")
    monkeypatch.setattr(pipeline, "TrustedWorker", lambda *a: pytest.fail("no worker may start"))
    with pytest.raises(KbxError, match="--unconfined"):
        pipeline.Evaluator("cpu", Limits(timeout_s=10))


def test_unconfined_rows_say_so(monkeypatch):
    monkeypatch.setattr(pipeline, "unavailable", lambda spec: pytest.fail("no probe without confinement"))
    with pipeline.Evaluator("cpu", Limits(timeout_s=10, confined=False)) as evaluator:
        assert evaluator.environment["confinement"] == "none (--unconfined)"


def test_a_solution_with_a_self_test_under_a_main_guard_passes(cpu_evaluator, suite):
    """The self-test compares with torch's relu; it is not judged (static stage) and never runs (the worker imports
    the candidate under its own module name)."""
    from kbx.candidates.source import Candidate

    task = suite["relu"]
    code = (task.path / "solution.py").read_text() + (
        '\n\nif __name__ == "__main__":\n    x = torch.randn(1000)\n    assert torch.equal(relu(x), torch.relu(x))\n'
        '    raise SystemExit("the self-test ran")\n'
    )
    evaluation = cpu_evaluator.evaluate(task, Candidate("self_test", "relu", code))
    assert evaluation.status.value == "PASSED", evaluation.message


def test_a_kernel_with_block_pointers_passes_on_the_cpu(cpu_evaluator, suite):
    """Block pointers compile on the GPU's Triton 3.6; the CPU's Triton removed them, and the interpreter shim
    (`kbx.evaluation.candidate.block_pointers`) brings them back inside the confined worker."""
    from kbx.candidates.source import Candidate

    path = FIXTURES / "interpreter" / "relu_block_pointers.py"
    evaluation = cpu_evaluator.evaluate(suite["relu"], Candidate(str(path), "relu", path.read_text()))
    assert evaluation.status.value == "PASSED", evaluation.message


def test_a_part_with_bench_workloads_is_admitted_by_their_memory_on_a_gpu_alone(suite):
    from types import SimpleNamespace

    from kbx.evaluation.orchestrator.memory_budget import PEAK_FACTOR, memory_budget
    from kbx.evaluation.orchestrator.trusted_pool import Served

    asked = []

    class Trusted:
        def request(self, kind, payload):
            asked.append(kind)
            return {"bench": 1000}

    evaluator = pipeline.Evaluator.__new__(pipeline.Evaluator)  # only what admission uses: no workers started
    evaluator.device, evaluator.gpu, evaluator._footprints = "cuda", "admission-test", {}
    evaluator.environment = {"memory_bytes": 10**9}
    evaluator._pool = SimpleNamespace(first=Served(Trusted()))
    budget = memory_budget("admission-test", 10**9)
    with evaluator._admitted(suite["relu"], "timing"):
        assert budget.held == PEAK_FACTOR * 1000
    with evaluator._admitted(suite["relu"], "all"), evaluator._admitted(suite["relu"], "correctness"):
        assert budget.held == PEAK_FACTOR * 1000  # the correctness part runs no bench workload
    assert asked == ["footprint"] and budget.held == 0  # sized once per task
    evaluator.device = "cpu"
    with evaluator._admitted(suite["relu"], "timing"):
        assert budget.held == 0

    class Failing:
        def request(self, kind, payload):
            raise RuntimeError("trusted worker failed on 'footprint'")

    evaluator.device, evaluator._pool = "cuda", SimpleNamespace(first=Served(Failing()))
    with evaluator._admitted(suite["gelu"], "timing"):  # unsized: nothing held, the run alone still catches it
        assert budget.held == 0
