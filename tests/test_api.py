import pytest

import kbx
from kbx.tasks.registry import default_suite_root

SOLUTION = (default_suite_root() / "Activation" / "relu" / "solution.py").read_text()


@pytest.mark.slow
def test_evaluate_source_and_reply():
    assert kbx.evaluate("relu", SOLUTION, device="cpu").status.value == "PASSED"
    reply = f"Here is my kernel:\n```python\n{SOLUTION}```\nIt is fast."
    assert kbx.evaluate("relu", reply, device="cpu").status.value == "PASSED"


def test_reply_without_code_is_a_status():
    evaluation = kbx.evaluate("relu", "Sorry:\n```text\nno kernel today\n```", device="cpu")
    assert evaluation.status.value == "REJECTED_STATIC" and "none in Python" in evaluation.message
    evaluation = kbx.evaluate("relu", "Sorry, ``` I have no kernel ```", device="cpu")
    assert evaluation.status.value == "REJECTED_STATIC" and "no code block" in evaluation.message
