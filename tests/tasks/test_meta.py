import re
import shutil
from pathlib import Path

import pytest

from kbx.errors import TaskError
from kbx.tasks.meta import parse_signature, read_task
from kbx.tasks.registry import default_suite_root, validate_suite
from kbx.tasks.sizes import perturbed

GELU = default_suite_root() / "Activation" / "gelu"


OWN_PERTURB = """

def perturb(workload, rng):
    return {**workload.params, "shape": sizes.shape_near(rng, workload.params["shape"])}
"""


def with_own_perturb(folder: Path) -> Path:
    """The task in `folder` with its declared perturbation (`TASK["perturb"]`) written out as its own function."""
    path = folder / "task.py"
    text = path.read_text().replace('    "perturb": "shape",\n', "", 1)
    text = text.replace("from kbx.tasks import inputs\n", "from kbx.tasks import inputs, sizes\n", 1)
    path.write_text(text + OWN_PERTURB)
    return folder


@pytest.fixture
def task_copy(tmp_path: Path) -> Path:
    """gelu, with a perturb function of its own."""
    folder = tmp_path / "Activation" / "gelu"
    shutil.copytree(GELU, folder)
    return with_own_perturb(folder)


def corrupt(folder: Path, old: str, new: str) -> None:
    path = folder / "task.py"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_reads_gelu():
    task = read_task(GELU)
    assert task.name == "gelu" and task.category == "Activation" and task.level == 1
    assert task.signature.render() == "(input, approximate='none')"
    assert task.contract.tolerances["bfloat16"].rtol == 1.6e-2
    assert task.contract.against_truth and set(task.contract.insensitive) == {"check_tail"}
    assert {w.role for w in task.workloads} == {"smoke", "check", "bench"}
    assert "def reference" in task.reference_source and task.description.startswith("GELU")


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ('"category": "Activation"', '"category": "Activations"', "is not one of"),
        ('"signature": "(input, approximate=\'none\')"', '"signature": "(input)"', "does not match"),
        ('"dtypes": ["float32", "bfloat16"]', '"dtypes": ["float31"]', "dtype 'float31'"),
        ('"kind": "allclose",', '"kind": "close",', "kind is one of"),
        ('"kind": "allclose",', '"kind": "allclose", "rounded_inputs": {"inputs": ["x"], "reason": "r"},',
         "rounded_inputs names x, not parameters of the signature"),
        ('"role": "bench"', '"role": "benchmark"', "role 'benchmark'"),
        ('"name": "gelu"', '"name": "gelu2"', "differs from its folder"),
        ("def make_inputs(workload, dtype, generator)", "def make_inputs(workload, dtype)", "make_inputs must take"),
        ("def reference(", "def reference2(", "no top-level function `reference`"),
        ("TASK = {", "TASK = dict(x=1) or {", "must be a literal dict"),
        ("from kbx.tasks import inputs, sizes\n", "from kbx.tasks import (\n", "syntax error on line"),
        ('"forbidden": ["gelu", "erf", "erfc", "erfcx", "ndtr", "tanh", "sigmoid"]', '"forbidden": "gelu"',
         "forbidden must be a list of operation names"),
        ('"forbidden": ["gelu",', '"forbidden": [["gelu"],', "forbidden must be a list of operation names"),
        ('"forbidden": ["gelu",', '"forbidden": ["torch.gelu",', "forbidden must be a list of operation names"),
        ('"forbidden": ["gelu",', '"forbidden": ["GELU", "gelu",', "are the same operation"),
        ('"dtypes": [', '"input_ranges": {"x": [0, 1]}, "dtypes": [', "'x', which is not a parameter"),
        ('"dtypes": [', '"input_ranges": {"input": [1, 0]}, "dtypes": [', "finite low < high"),
        ('"dtypes": [', '"input_ranges": [0, 1], "dtypes": [', "input_ranges must be a dict"),
        ('"dtypes": [', '"defaults_kept": {"input": "x"}, "dtypes": [',
         "'input', which is not a parameter with a default"),
        ('"dtypes": [', '"defaults_kept": {"approximate": " "}, "dtypes": [', "must say why"),
        ('"dtypes": [', '"uncompetitive_baseline": "", "dtypes": [',
         "must say why the timed baseline is not a competitive implementation"),
        ('"dtypes": [', '"uncompetitive_baseline": True, "dtypes": [',
         "must say why the timed baseline is not a competitive implementation"),
        ("def make_inputs(", "def baseline(input):\n    return input\n\n\ndef make_inputs(",
         "baseline(input) must take the reference's parameters (input, approximate='none')"),
        ("def make_inputs(", "baseline = F.gelu\n\n\ndef make_inputs(", "baseline must be bound once"),
    ],
)
def test_malformed_task_names_file_and_problem(task_copy, old, new, problem):
    corrupt(task_copy, old, new)
    with pytest.raises(TaskError) as info:
        read_task(task_copy)
    assert str(task_copy / "task.py") in str(info.value) and problem in str(info.value)
    assert "\n" not in str(info.value)


def test_forbidden_is_read_and_optional(task_copy):
    assert read_task(GELU).forbidden[:2] == ("gelu", "erf")
    corrupt(task_copy, '"forbidden": [', '# "forbidden": [')
    assert read_task(task_copy).forbidden == ()


def test_input_ranges_are_read_and_optional(task_copy):
    assert read_task(GELU).input_ranges == {}
    corrupt(task_copy, '"dtypes": [', '"input_ranges": {"input": [-1, 2.5]}, "dtypes": [')
    assert read_task(task_copy).input_ranges == {"input": (-1.0, 2.5)}


def test_defaults_kept_are_read_and_optional(task_copy):
    assert read_task(GELU).defaults_kept == {}
    corrupt(task_copy, '"dtypes": [', '"defaults_kept": {"approximate": "only one form"}, "dtypes": [')
    assert read_task(task_copy).defaults_kept == {"approximate": "only one form"}


def test_a_baseline_and_an_uncompetitive_one_are_read_and_optional(task_copy):
    assert read_task(GELU).baseline_source == "" and read_task(GELU).uncompetitive_baseline == ""
    corrupt(task_copy, '"dtypes": [', '"uncompetitive_baseline": "a composition of three kernels", "dtypes": [')
    corrupt(task_copy, "def make_inputs(",
            "def baseline(input, approximate='none'):\n    return F.gelu(input, approximate=approximate)\n\n\n"
            "def make_inputs(")
    task = read_task(task_copy)
    assert task.uncompetitive_baseline == "a composition of three kernels"
    assert task.baseline_source.startswith("def baseline(input, approximate='none'):")


def test_a_bench_workload_may_name_the_gpu_memory_it_needs(task_copy):
    assert all(w.min_gpu_gib is None for w in read_task(GELU).workloads)
    corrupt(task_copy, '"role": "bench",', '"role": "bench", "min_gpu_gib": 139,')
    bench = read_task(task_copy).workloads_for(("bench",))
    assert [w.min_gpu_gib for w in bench] == [139.0, None]  # the first bench workload alone


def test_a_bench_workload_may_be_checked_and_not_timed(task_copy):
    assert all(w.timed for w in read_task(GELU).workloads)
    corrupt(task_copy, '"role": "bench",', '"role": "bench", "timed": False,')
    task = read_task(task_copy)
    assert [w.timed for w in task.workloads_for(("bench",))] == [False, True]
    assert task.timed_workloads() == task.workloads_for(("bench",))[1:]


@pytest.mark.parametrize(("old", "new", "problem"), [
    ('"role": "bench",', '"role": "bench", "timed": 0,', "timed must be true or false"),
    ('"role": "check",', '"role": "check", "timed": False,', "only a bench workload is timed"),
    ('"role": "bench",', '"role": "bench", "min_gpu_gib": 0,', "min_gpu_gib must be a positive number"),
    ('"role": "bench",', '"role": "bench", "min_gpu_gib": "80",', "min_gpu_gib must be a positive number"),
    ('"role": "check",', '"role": "check", "min_gpu_gib": 80,', "only a bench workload may name min_gpu_gib"),
])
def test_a_malformed_gpu_memory_need_is_refused(task_copy, old, new, problem):
    corrupt(task_copy, old, new)
    with pytest.raises(TaskError, match=problem):
        read_task(task_copy)


def test_missing_bench_workload(task_copy):
    text = (task_copy / "task.py").read_text().replace('"role": "bench"', '"role": "check"')
    (task_copy / "task.py").write_text(text)
    with pytest.raises(TaskError, match="at least one 'bench' workload"):
        read_task(task_copy)


def test_validate_suite_collects_every_problem(task_copy):
    other = task_copy.parent.parent / "Math" / "broken"
    other.mkdir(parents=True)
    (other / "task.py").write_text("TASK = 3\n")
    corrupt(task_copy, '"level": 1', '"level": 7')
    tasks, problems = validate_suite(task_copy.parent.parent)
    assert tasks == [] and len(problems) == 2


def test_parse_signature_rejects_non_literal_defaults():
    assert parse_signature("(input, dim=-1, keepdim=False)").names == ("input", "dim", "keepdim")
    with pytest.raises(ValueError, match="not a literal"):
        parse_signature("(input, dim=len([]))")


def test_perturb_is_read_and_optional(task_copy):
    task = read_task(task_copy)
    assert task.perturbs and task.perturb_source.startswith("def perturb(workload, rng):")
    text = (task_copy / "task.py").read_text()
    (task_copy / "task.py").write_text(text[: text.index("\n\ndef perturb(")] + "\n")
    assert not read_task(task_copy).perturbs


def test_the_standard_perturbation_is_declared_in_task_and_equals_the_function(task_copy, tmp_path):
    declared = read_task(GELU)
    own = read_task(task_copy)
    assert declared.perturbs and declared.perturb_source.startswith("def perturb(workload, rng):")
    for workload in declared.workloads_for(("check",)):
        for seed in (1, 99, 2**50):
            assert perturbed(declared, workload, seed) == perturbed(own, workload, seed)


@pytest.mark.parametrize(
    ("declared", "problem"),
    [("3", 'TASK["perturb"] names the shape parameter'), ('"size"', 'TASK["perturb"] names the shape parameter')],
)
def test_a_declared_perturbation_must_name_every_check_workloads_shape(tmp_path, declared, problem):
    folder = tmp_path / "Activation" / "gelu"
    shutil.copytree(GELU, folder)
    corrupt(folder, '"perturb": "shape"', f'"perturb": {declared}')
    with pytest.raises(TaskError, match=re.escape(problem)):
        read_task(folder)


def test_perturbation_declared_and_defined_is_refused(task_copy):
    corrupt(task_copy, '\n    "workloads": [', '\n    "perturb": "shape",\n    "workloads": [')
    with pytest.raises(TaskError, match="declared in TASK and defined too"):
        read_task(task_copy)


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("def perturb(workload, rng):", "def perturb(workload):", "perturb must take exactly ('workload', 'rng')"),
        ("def perturb(workload, rng):", "def perturb(workload, rng, scale=1):", "perturb must take exactly"),
        ("def perturb(workload, rng):", "@staticmethod\ndef perturb(workload, rng):", "without decorators"),
        ("def perturb(workload, rng):", "def perturb(workload, rng):\n    import torch", "must not import"),
        ("def perturb(workload, rng):", "perturb = None\n\n\ndef perturb(workload, rng):", "bound once"),
        ("sizes.shape_near(rng, ", "inputs.layout(rng, ", "perturb reads inputs; it runs without task.py's"),
        ("sizes.shape_near(rng, ", "F.gelu(rng, ", "perturb reads F;"),
    ],
)
def test_malformed_perturb_names_file_and_problem(task_copy, old, new, problem):
    corrupt(task_copy, old, new)
    with pytest.raises(TaskError) as info:
        read_task(task_copy)
    assert str(task_copy / "task.py") in str(info.value) and problem in str(info.value)
    assert "\n" not in str(info.value)


def test_a_workload_preset_expands_to_its_list_and_an_unknown_one_is_refused(tmp_path):
    from kbx.tasks.presets import PRESETS

    exp = read_task(default_suite_root() / "Math" / "exp")
    assert [(w.name, w.role, dict(w.params)) for w in exp.workloads] == [
        (w["name"], w["role"], w["params"]) for w in PRESETS["elementwise"]]
    folder = tmp_path / "Math" / "exp"
    shutil.copytree(default_suite_root() / "Math" / "exp", folder)
    corrupt(folder, '"workloads": "elementwise"', '"workloads": "elementwize"')
    with pytest.raises(TaskError, match="names no preset: 'elementwize'"):
        read_task(folder)
