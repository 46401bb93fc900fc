"""On a GPU: a reference that breaks the trusted worker's CUDA context (a device-side assert) costs the request
that did it, not the run: the worker reports the broken context and ends, and the next request gets a new one."""

from __future__ import annotations

import shutil

import pytest

from kbx.errors import ReferenceFailed
from kbx.evaluation.orchestrator.trusted_client import TrustedWorker
from kbx.tasks.registry import default_suite_root

pytestmark = pytest.mark.gpu
RELU = default_suite_root() / "Activation" / "relu"


def test_a_device_side_assert_in_a_reference_costs_that_request_alone(tmp_path):
    broken = tmp_path / "Activation" / "relu"
    shutil.copytree(RELU, broken)
    task_py = broken / "task.py"
    text = task_py.read_text()
    task_py.write_text(text.replace("def reference(input):\n",
                                    "def reference(input):\n    torch.bernoulli(input.abs() + 2)\n", 1))
    assert task_py.read_text() != text
    case = {"workload": "smoke", "role": "smoke", "dtype": "float32"}
    worker = TrustedWorker("cuda")
    try:
        work = worker.request("work", {"task_dir": str(RELU), "case": case, "seeds": [3]})
        with pytest.raises(ReferenceFailed, match="^task relu: the trusted worker's GPU context broke"):
            worker.request("work", {"task_dir": str(broken), "case": case, "seeds": [3]})
        assert worker.request("work", {"task_dir": str(RELU), "case": case, "seeds": [3]}) == work
    finally:
        worker.close()


def test_bernoulli_without_its_input_range_is_not_judged_and_the_evaluator_goes_on(tmp_path, suite):
    """What a 2 x H200 run met: bernoulli's exact 1s, scaled above 1 by the timing refresh, made the eager baseline
    assert on the device, and `kbx run` died with a traceback. Now that evaluation is not judged, and the same
    evaluator times the next candidate."""
    from kbx.candidates.source import Candidate
    from kbx.evaluation.bench_inputs import TimingSettings
    from kbx.evaluation.orchestrator.pipeline import Evaluator
    from kbx.evaluation.orchestrator.sandbox import Limits
    from kbx.tasks.meta import read_task

    folder = tmp_path / "Random" / "bernoulli"
    shutil.copytree(suite["bernoulli"].path, folder)
    task_py = folder / "task.py"
    text = task_py.read_text()
    task_py.write_text(text.replace('    "input_ranges": {"input": [0.0, 1.0]},\n', ""))
    unranged = read_task(folder)
    assert task_py.read_text() != text and not unranged.input_ranges

    def evaluate(evaluator, task):
        path = task.path / "solution.py"
        return evaluator.evaluate(task, Candidate(str(path), task.name, path.read_text()))

    settings = TimingSettings(rounds=2, budget_s=0.2, min_samples=10)
    with Evaluator("cuda", Limits(timeout_s=300), timing=settings) as evaluator:
        with pytest.raises(ReferenceFailed, match="^task bernoulli: the trusted worker's GPU context broke"):
            evaluate(evaluator, unranged)
        relu = evaluate(evaluator, suite["relu"])
        assert relu.status.value == "PASSED" and relu.to_json()["speedup_eager"] > 0, relu.message
