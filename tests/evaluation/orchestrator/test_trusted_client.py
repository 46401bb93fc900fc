"""The orchestrator's handle on the trusted worker: a process it starts and restarts, requests that fail as values
the run can go on from, descriptors passed along and closed."""

from __future__ import annotations

import json
import os
import signal

import pytest
import torch

from kbx.errors import ReferenceFailed
from kbx.evaluation.cases import plan_cases, workload_of
from kbx.evaluation.orchestrator.trusted_client import INDUCTOR_CACHE, TrustedWorker, _environment, _task_of
from kbx.evaluation.outputs import pack_outputs
from kbx.tasks.meta import read_task
from kbx.tasks.module import import_task
from kbx.tasks.registry import default_suite_root

RELU = read_task(default_suite_root() / "Activation" / "relu")


def test_a_started_worker_says_what_it_runs_on_and_closes():
    worker = TrustedWorker("cpu")
    try:
        assert worker.device == "cpu" and worker.environment["device"] == "cpu"
        process = worker._process
    finally:
        worker.close()
    assert process.poll() == 0 and worker._process is None
    worker.close()  # twice is harmless


def test_a_worker_that_dies_costs_that_request_alone_and_the_next_starts_a_new_one():
    """A reference that kills the process (a crash in a vendor library; on a GPU also a device-side assert, which
    leaves the CUDA context unusable and ends the worker): the request raises `ReferenceFailed`, so that one
    evaluation is not judged, and the next request is served by a new worker."""
    worker = TrustedWorker("cpu")
    try:
        case = {"workload": "smoke", "role": "smoke", "dtype": "float32"}
        payload = {"task_dir": str(RELU.path), "case": case, "seeds": [3]}
        work = worker.request("work", payload)
        os.kill(worker._process.pid, signal.SIGKILL)
        with pytest.raises(ReferenceFailed, match=r"^task relu: the trusted worker died \(exit code -9\) while "
                                                  r"serving 'work'; a new trusted worker takes over$"):
            worker.request("work", payload)
        assert worker.request("work", payload) == work
    finally:
        worker.close()


def test_descriptors_reach_the_trusted_worker_and_are_closed_on_both_sides(tmp_path):
    case = plan_cases(RELU, "cpu", 5)[0]
    generator = torch.Generator().manual_seed(case.seed)
    inputs = import_task(RELU).make_inputs(workload_of(RELU, case.to_json()), case.dtype, generator)
    torch.save({"outputs": pack_outputs(torch.relu(inputs["input"]))}, tmp_path / "case.pt")
    sent = {**json.loads(json.dumps(case.to_json())), "file": "case.pt"}
    worker = TrustedWorker("cpu")
    try:
        fds = [os.open(os.devnull, os.O_RDONLY) for _ in range(3)]
        (result,) = worker.check(RELU.path, tmp_path, [sent], fds)
        assert [c["status"] for c in result["comparisons"]] == ["PASSED"]  # unasked-for descriptors change nothing
        for fd in fds:
            with pytest.raises(OSError):
                os.fstat(fd)
    finally:
        worker.close()


def test_a_failure_names_the_task_it_was_about():
    assert _task_of({"task_dir": "/suite/Activation/relu"}) == "task relu: "
    assert _task_of({"task_dir": "/kb/level1/19_ReLU.py"}) == "task level1/19_ReLU: "
    assert _task_of({}) == ""


def test_the_trusted_workers_compile_cache_lives_under_kbxs_cache_root_unless_placed(monkeypatch, tmp_path):
    monkeypatch.setenv("KBX_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(INDUCTOR_CACHE, raising=False)
    assert _environment(1)[INDUCTOR_CACHE] == str(tmp_path / "inductor")
    monkeypatch.setenv(INDUCTOR_CACHE, "/elsewhere")
    assert _environment(1)[INDUCTOR_CACHE] == "/elsewhere"
