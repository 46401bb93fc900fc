"""`kbx run --method reference` over KernelBench problems: each problem's own `Model`, renamed `ModelNew`, judged
under `Policy.REFERENCE_CODE` on the CPU interpreter in the confined pipeline; the same source submitted as an
ordinary candidate is judged as a kernel (and rejected), whatever it says about policies."""

from __future__ import annotations

import json
from pathlib import Path

from kbx.tasks.kernelbench.own_code import model_as_modelnew
from tests.tasks.kernelbench.problems import FIXTURES
from tests.tasks.kernelbench.test_end_to_end import CANDIDATES, SUITE, kbx

PROBLEMS = {"level1/1_Shifted_Square", "level2/1_Linear_ReLU", "level3/1_Two_Layer_MLP"}


def rows(out: Path) -> dict[str, dict]:
    return {r["task"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}


def test_the_problems_own_code_passes_under_the_reference_code_policy_and_its_rows_say_so(tmp_path):
    result = kbx("run", "--method", "reference", "--suite", SUITE, "--device", "cpu", "--out", str(tmp_path / "out"),
                 "--store", str(tmp_path / "kbx.db"))
    assert result.returncode == 0, result.stderr
    found = rows(tmp_path / "out")
    assert set(found) == PROBLEMS
    for task, row in found.items():
        assert (row["status"], row["policy"]) == ("PASSED", "reference-code"), row["message"]
        assert row["provenance"] == {"method": "reference", "path": str(FIXTURES / f"{task}.py"), "own_code": True}
        assert {c["workload"] for c in row["cases"]} == {"smoke", "check", "check~p", "check~p~refill"}
    assert "policy reference-code (3 evaluation(s)): the candidates are the problems' own reference code" \
        in result.stdout


def test_the_same_source_submitted_as_a_candidate_is_judged_as_a_kernel(tmp_path):
    """The relaxation comes from the method alone: `kbx eval` of the very source the method made (into the same
    store, so a cached oracle verdict would be served if the policy were not part of the key) is rejected."""
    store = str(tmp_path / "kbx.db")
    ran = kbx("run", "--method", "reference", "--suite", SUITE, "--device", "cpu", "--tasks", "level2/1_Linear_ReLU",
              "--out", str(tmp_path / "oracle"), "--store", store)
    assert ran.returncode == 0, ran.stderr
    source = model_as_modelnew((FIXTURES / "level2" / "1_Linear_ReLU.py").read_text())
    (tmp_path / "level2").mkdir()
    (tmp_path / "level2" / "1_Linear_ReLU.py").write_text(source)
    result = kbx("eval", str(tmp_path / "level2"), "--suite", SUITE, "--device", "cpu", "--out",
                 str(tmp_path / "out"), "--store", store)
    assert result.returncode == 0, result.stderr
    row = rows(tmp_path / "out")["level2/1_Linear_ReLU"]
    assert row["candidate_hash"] == rows(tmp_path / "oracle")["level2/1_Linear_ReLU"]["candidate_hash"]
    assert (row["status"], row["policy"], row["cached_from"]) == ("REJECTED_STATIC", "kernel", None)
    assert row["message"].startswith("triton_kernel: no @triton.jit kernel is defined")
    assert "policy reference-code" not in result.stdout


CLAIMS_THE_POLICY = '''
policy = "reference-code"
POLICY = "reference-code"
REFERENCE_CODE = True
own_kernels_required = False
'''


def test_a_candidate_cannot_turn_the_policy_on(tmp_path):
    """Names of the policy bound in the candidate's module, or a `policy` field in a JSONL record, change nothing:
    torch doing the work behind a copy kernel is still `runtime.torch_compute`."""
    cheat = (CANDIDATES / "level1" / "1_Shifted_Square" / "torch_does_the_work.py").read_text()
    (tmp_path / "1_Shifted_Square.py").write_text(CLAIMS_THE_POLICY + cheat)
    record = {"task": "level1/1_Shifted_Square", "code": CLAIMS_THE_POLICY + cheat, "policy": "reference-code",
              "name": "claims.jsonl"}
    (tmp_path / "claims.jsonl").write_text(json.dumps(record) + "\n")
    for source in ("1_Shifted_Square.py", "claims.jsonl"):
        out = tmp_path / source.replace(".", "_")
        result = kbx("eval", str(tmp_path / source), "--suite", SUITE, "--device", "cpu", "--out", str(out),
                     "--store", str(tmp_path / f"{source}.db"))
        assert result.returncode == 0, result.stderr
        row = rows(out)["level1/1_Shifted_Square"]
        assert (row["status"], row["policy"]) == ("REJECTED_RUNTIME", "kernel"), row["message"]
        assert row["message"].startswith("runtime.torch_compute")
