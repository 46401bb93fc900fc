"""Candidates that hang, crash, exit, flood output or raise each get their status, and the run goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbx.running.runner import RunOptions, RunResult, evaluate_sources
from kbx.tasks.suite_check import expected_status
from tests.conftest import FIXTURES

TIMEOUT_S = 45.0  # a candidate that prints 100 MB must still finish every gelu case under load
HOSTILE = FIXTURES / "hostile"
EXPECTED = {path.stem: expected_status(path) for path in sorted(HOSTILE.glob("*.py"))}
EXPECTED["no_code_reply"] = "REJECTED_STATIC"


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> RunResult:
    out = tmp_path_factory.mktemp("hostile")
    replies = out / "replies.jsonl"
    replies.write_text(json.dumps({"task": "gelu", "name": "no_code_reply", "response": "Use F.gelu."}) + "\n")
    options = RunOptions(out_dir=out / "run", device="cpu", tasks=("gelu",), timeout_s=TIMEOUT_S, jobs=2)
    return evaluate_sources([str(HOSTILE), str(replies)], options, progress=None)


def _by_name(run: RunResult) -> dict[str, object]:
    return {Path(e.candidate).stem if e.candidate.endswith(".py") else e.candidate: e for e in run.evaluations}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_hostile_candidate_gets_its_status(hostile_run, name):
    evaluation = _by_name(hostile_run)[name]
    assert evaluation.status.value == EXPECTED[name], evaluation.message


@pytest.mark.slow
def test_timeout_is_enforced_within_its_limit(hostile_run):
    evaluation = _by_name(hostile_run)["loop_forever"]
    assert TIMEOUT_S <= evaluation.elapsed_s < TIMEOUT_S + 15
    assert "no result within" in evaluation.message


@pytest.mark.slow
def test_flooded_output_is_capped(hostile_run):
    evaluation = _by_name(hostile_run)["print_100mb"]
    assert len(evaluation.worker_output) < 64 * 1024 and "bytes dropped" in evaluation.worker_output


@pytest.mark.slow
def test_messages_name_the_problem(hostile_run):
    by_name = _by_name(hostile_run)
    assert "SIGSEGV" in by_name["segfault"].message
    assert "exited with code 0" in by_name["os_exit_mid_call"].message
    assert "this kernel gave up" in by_name["raises"].message and "ValueError" in by_name["raises"].error
    assert "no code block" in by_name["no_code_reply"].message
    assert "input" in by_name["mutates_input"].message


@pytest.mark.slow
def test_every_evaluation_is_written(hostile_run):
    rows = [json.loads(line) for line in (hostile_run.out_dir / "results.jsonl").read_text().splitlines()]
    assert len(rows) == len(EXPECTED)
    for row in rows:
        assert {"task", "category", "candidate", "status", "call_ok", "exe_ok", "device"} <= row.keys()
        assert row["speedup_eager"] is None and row["sol_fraction"] is None  # never invented on a CPU
    run_info = json.loads((hostile_run.out_dir / "run.json").read_text())
    assert isinstance(run_info["secret_seed"], int)
