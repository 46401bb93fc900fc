from kbx.tasks.describe import describe
from kbx.tasks.meta import read_task
from kbx.tasks.registry import default_suite_root


def test_a_task_with_an_input_range_names_it_and_others_do_not():
    bernoulli = describe(read_task(default_suite_root() / "Random" / "bernoulli"))
    assert "input range: input in [0, 1] (timing keeps it there)" in bernoulli
    assert "input range" not in describe(read_task(default_suite_root() / "Activation" / "relu"))


def test_the_timed_baseline_is_named_with_its_source_or_why_it_is_uncompetitive():
    relu = describe(read_task(default_suite_root() / "Activation" / "relu"))
    assert "timed baseline (eager, and compiled for torch.compile): the reference\n" in relu
    matmul = describe(read_task(default_suite_root() / "MatrixMultiply" / "matmul_tf32"))
    assert "the task's own, below\ndef baseline(input, other):" in matmul
    qr = describe(read_task(default_suite_root() / "LinearAlgebra" / "qr"))
    assert "not a competitive implementation: torch.linalg.qr on thousands" in qr


def test_an_allclose_contract_renders_the_truth_rule_with_its_accumulation_dtype_and_length():
    text = describe(read_task(default_suite_root() / "Reduce" / "sum"))
    assert "judged against a float64 truth" in text
    assert "accumulation dtype: float32; accumulation length n = the workload's `length`" in text
    assert "normwise: ||out - truth||_2 <= 4 * ||ref - truth||_2" in text
    assert "every element: |out - truth| <=" in text and "atol=" not in text


def test_an_absolute_allowance_is_rendered_with_its_size_and_reason():
    text = describe(read_task(default_suite_root() / "Activation" / "elu"))
    assert "every element may also be off by 16 u_acc = 9.54e-07 in absolute terms" in text
    assert "PyTorch calls expm1" in text
    assert "in absolute terms" not in describe(read_task(default_suite_root() / "Activation" / "silu"))


def test_rounded_inputs_are_rendered_with_their_reason():
    text = describe(read_task(default_suite_root() / "Fusion" / "attention_causal"))
    assert "P moves query by u_out of the case's dtype" in text and "fused-attention tutorial" in text
    assert "P moves" not in describe(read_task(default_suite_root() / "Activation" / "silu"))


def test_a_bench_workload_checked_but_not_timed_says_so():
    text = describe(read_task(default_suite_root() / "Normalization" / "softmax"))
    assert "bench_over_2_31" in text and "(checked, not timed)" in text
