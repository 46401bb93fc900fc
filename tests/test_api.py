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


@pytest.mark.slow
def test_a_plain_script_without_a_main_guard_works(tmp_path):
    """The README's example saved as a file and run as it is: the workers must not re-import the user's script, nor
    import modules from the user's working directory."""
    import subprocess
    import sys

    (tmp_path / "torch.py").write_text("raise SystemExit('a torch.py in the working directory was imported')\n")
    (tmp_path / "scripts").mkdir()  # the script lives elsewhere: only kbx's workers could pick the file above up
    script = tmp_path / "scripts" / "evaluate_relu.py"
    script.write_text(
        "import kbx\n"
        "from kbx.tasks.registry import default_suite_root\n"
        "source = (default_suite_root() / 'Activation' / 'relu' / 'solution.py').read_text()\n"
        "print('status', kbx.evaluate('relu', source, device='cpu').status.value)\n"
    )
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.count("status") == 1, result.stderr[-2000:]
    assert "status PASSED" in result.stdout


@pytest.mark.slow
def test_one_evaluator_judges_a_batch_from_threads():
    """The README's batch: candidates evaluated at once from a thread pool each get their own verdict."""
    from concurrent.futures import ThreadPoolExecutor

    from kbx.candidates.source import Candidate
    from kbx.evaluation import Evaluator
    from kbx.tasks.registry import load_suite, select

    task = select(load_suite(), ["relu"])[0]
    wrong = sorted((task.path / "wrong").glob("*.py"))[0].read_text()
    batch = [SOLUTION, wrong, SOLUTION, wrong]
    with Evaluator("cpu", timing=None) as evaluator, ThreadPoolExecutor(4) as pool:
        verdicts = list(pool.map(
            lambda code: evaluator.evaluate(task, Candidate("s", "relu", code), part="correctness").correct, batch))
    assert verdicts == [True, False, True, False]
