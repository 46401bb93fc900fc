from kbx.tasks.describe import describe
from kbx.tasks.meta import read_task
from kbx.tasks.registry import default_suite_root


def test_a_task_with_an_input_range_names_it_and_others_do_not():
    bernoulli = describe(read_task(default_suite_root() / "Random" / "bernoulli"))
    assert "input range: input in [0, 1] (timing keeps it there)" in bernoulli
    assert "input range" not in describe(read_task(default_suite_root() / "Activation" / "relu"))
