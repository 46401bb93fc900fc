import json

import pytest

from kbx.candidates.ingest import ingest
from kbx.errors import KbxError

TASKS = ["relu", "gelu", "softmax"]


def test_file_named_after_task(tmp_path):
    (tmp_path / "gelu_v2.py").write_text("def gelu(input, approximate='none'):\n    pass\n")
    got = ingest([tmp_path / "gelu_v2.py"], TASKS)
    assert [c.task for c in got.candidates] == ["gelu"]


def test_file_matched_by_defined_function(tmp_path):
    (tmp_path / "attempt.py").write_text("def softmax(input, dim):\n    pass\n")
    assert [c.task for c in ingest([tmp_path], TASKS).candidates] == ["softmax"]


def test_unmatched_file_is_skipped_with_a_reason(tmp_path):
    (tmp_path / "mystery.py").write_text("x = 1\n")
    got = ingest([tmp_path], TASKS)
    assert got.candidates == [] and "cannot tell which task" in got.skipped[0]


def test_single_task_option_applies_to_every_file(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    assert [c.task for c in ingest([tmp_path], TASKS, only=["relu"]).candidates] == ["relu"]


def test_jsonl_code_response_and_bad_lines(tmp_path):
    lines = [
        json.dumps({"task": "relu", "code": "def relu(input):\n    pass\n"}),
        json.dumps({"task": "gelu", "response": "Sure!\n```python\ndef gelu(input, approximate='none'):\n  pass\n```"}),
        json.dumps({"task": "gelu", "response": "I cannot help with that."}),
        "{not json",
        json.dumps({"task": "nope", "code": ""}),
    ]
    (tmp_path / "replies.jsonl").write_text("\n".join(lines) + "\n")
    got = ingest([tmp_path / "replies.jsonl"], TASKS)
    assert [c.task for c in got.candidates] == ["relu", "gelu", "gelu"]
    assert got.candidates[1].code.startswith("def gelu")
    assert got.candidates[2].code is None and "no code block" in got.candidates[2].problem
    assert got.candidates[2].provenance["response"] == "I cannot help with that."
    assert len(got.skipped) == 2 and ":4:" in got.skipped[0] and "unknown task" in got.skipped[1]


def test_missing_path_is_a_user_error(tmp_path):
    with pytest.raises(KbxError, match="no such file"):
        ingest([tmp_path / "absent.py"], TASKS)


KERNELBENCH = {"level1/19_ReLU": "ModelNew", "level2/19_ReLU": "ModelNew", "level1/20_LeakyReLU": "ModelNew"}


def test_a_kernelbench_candidate_file_is_matched_by_level_folder_and_stem(tmp_path):
    for name in ("level1/19_ReLU.py", "level2/19_ReLU.py", "elsewhere/20_LeakyReLU.py", "elsewhere/19_ReLU.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("class ModelNew:\n    pass\n")
    got = ingest([tmp_path], KERNELBENCH)
    assert sorted(c.task for c in got.candidates) == ["level1/19_ReLU", "level1/20_LeakyReLU", "level2/19_ReLU"]
    assert len(got.skipped) == 1 and "elsewhere/19_ReLU.py" in got.skipped[0]  # two levels have a 19_ReLU


def test_a_kernelbench_reply_is_extracted_by_the_tasks_entry_point(tmp_path):
    reply = "```python\nimport torch\n```\n```python\nclass ModelNew:\n    pass\n```\n```python\nprint(1)\n```"
    (tmp_path / "replies.jsonl").write_text(json.dumps({"task": "level1/19_ReLU", "response": reply}) + "\n")
    (candidate,) = ingest([tmp_path / "replies.jsonl"], KERNELBENCH).candidates
    assert candidate.code == "class ModelNew:\n    pass\n"
