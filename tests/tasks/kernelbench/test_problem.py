"""Reading KernelBench problem files into tasks, from their syntax alone, and the suite they make."""

from __future__ import annotations

import pytest

from kbx.errors import KbxError, TaskError
from kbx.tasks.kernelbench import load_problems, problem_root
from kbx.tasks.kernelbench.problem import read_problem
from kbx.tasks.registry import open_suite, task_at
from kbx.tasks.sizes import perturbed
from tests.tasks.kernelbench.problems import FIXTURES, SCALE, write


def test_a_problem_becomes_a_task_named_by_level_and_stem():
    task = read_problem(FIXTURES / "level2" / "1_Linear_ReLU.py")
    assert (task.name, task.level, task.category) == ("level2/1_Linear_ReLU", 2, "Fusion")
    assert task.entry_point == "ModelNew"
    assert task.module is not None and task.module.init == ("in_features", "out_features")
    assert task.signature.names == ("x",)
    assert task.dtypes == ("float32",)
    assert task.description == "A linear layer followed by a ReLU."
    assert "def get_inputs" in task.reference_source


def test_the_bench_workload_is_the_problem_as_published_and_the_others_are_small_and_odd():
    task = read_problem(FIXTURES / "level2" / "1_Linear_ReLU.py")
    assert [w.role for w in task.workloads] == ["bench", "smoke", "check"]
    assert task.workload("bench").params["sizes"] == {}
    for role in ("smoke", "check"):
        values = task.workload(role).params["sizes"]
        assert set(values) == {"batch_size", "in_features", "out_features"}
        assert all(v % 2 == 1 and v < 200 for v in values.values())
    assert task.perturbs


def test_the_perturbed_check_moves_and_keeps_its_rules():
    task = read_problem(FIXTURES / "level2" / "1_Linear_ReLU.py")
    check = task.workload("check")
    for seed in range(20):
        moved = perturbed(task, check, seed).params["sizes"]
        assert moved != check.params["sizes"]
        assert all(v % 2 == 1 and check.params["floor"] <= v <= check.params["sizes"][k] + 2 for k, v in moved.items())
        assert moved["batch_size"] <= moved["in_features"] <= moved["out_features"]


def test_the_version_follows_the_source(tmp_path):
    path = write(tmp_path, "level1/1_Scale", SCALE)
    first = read_problem(path).version
    path.write_text(path.read_text().replace("dim = 1000", "dim = 2000"))
    assert read_problem(path).version != first


def test_a_problem_without_sizes_to_shrink_has_only_a_bench_workload(tmp_path):
    source = SCALE.replace("torch.rand(batch_size, dim)", "torch.rand(16, 16)").replace("batch_size = 256\n", "")
    task = read_problem(write(tmp_path, "level1/1_Scale", source.replace("dim = 1000\n", "")))
    assert [w.role for w in task.workloads] == ["bench"] and not task.perturbs


@pytest.mark.parametrize(("change", "why"), [
    (lambda s: s.replace("def forward(self, x):", "def forward(self, x)"), "syntax error on line"),
    (lambda s: s.replace("def get_inputs", "def make_inputs"), "no top-level function `get_inputs()`"),
    (lambda s: s.replace("class Model(", "class Net("), "no top-level `class Model(nn.Module)`"),
    (lambda s: "import kbx_not_installed_anywhere\n" + s, "imports kbx_not_installed_anywhere, which is not installed"),
    (lambda s: s.replace("def forward(self, x):", "def forward(self, model):"), "parameter named 'model'"),
])
def test_a_problem_kbx_cannot_run_is_one_line_and_the_others_still_load(tmp_path, change, why):
    write(tmp_path, "level1/1_Scale", SCALE)
    write(tmp_path, "level1/2_Broken", change(SCALE))
    problems = load_problems(tmp_path)
    assert [t.name for t in problems.tasks] == ["level1/1_Scale"]
    assert len(problems.unloaded) == 1
    assert problems.unloaded[0].startswith("level1/2_Broken: ") and why in problems.unloaded[0]
    with pytest.raises(TaskError, match="2_Broken"):
        read_problem(tmp_path / "level1" / "2_Broken.py")


def test_a_checkout_or_its_problem_folder_and_a_level(tmp_path):
    folder = tmp_path / "KernelBench"
    for name in ("level1/2_Scale", "level1/10_Scale", "level2/1_Scale", "level3/1_Scale"):
        write(folder, name, SCALE)
    write(folder, "level4/1_Scale", SCALE)  # levels beyond 3 are not read
    for root in (tmp_path, folder):
        assert problem_root(root) == folder
        names = [t.name for t in load_problems(root).tasks]
        assert names == ["level1/2_Scale", "level1/10_Scale", "level2/1_Scale", "level3/1_Scale"]
    assert [t.name for t in load_problems(tmp_path, level=2).tasks] == ["level2/1_Scale"]
    with pytest.raises(KbxError, match="neither a KernelBench checkout"):
        problem_root(tmp_path / "level1")


def test_the_suite_spec_and_the_workers_find_the_same_task():
    suite = open_suite(f"kernelbench:{FIXTURES}")
    names = ["level1/1_Shifted_Square", "level2/1_Linear_ReLU", "level3/1_Two_Layer_MLP"]
    assert [t.name for t in suite.tasks] == names
    assert suite.unloaded == ()
    assert [t.name for t in open_suite(f"kernelbench:{FIXTURES}", level=3).tasks] == ["level3/1_Two_Layer_MLP"]
    for task in suite.tasks:
        assert task_at(task.path) == task


def test_the_suite_spec_needs_a_path():
    with pytest.raises(KbxError, match="needs the path"):
        open_suite("kernelbench:")
