import json
import subprocess
import sys

from kbx.evaluation.cases import PUBLIC_SEEDS, case_seed, plan_cases, workload_of
from kbx.tasks.meta import read_task
from kbx.tasks.registry import default_suite_root

GELU = read_task(default_suite_root() / "Activation" / "gelu")
CHECKS = GELU.workloads_for(("check",))


def test_cpu_plan_skips_bench_and_covers_every_dtype_and_seed():
    cases = plan_cases(GELU, "cpu", secret_seed=12345)
    published = [c for c in cases if c.params is None]
    assert {c.role for c in cases} == {"smoke", "check"}
    assert all(GELU.workload(c.workload).role == c.role for c in published)
    per_workload = len(GELU.dtypes) * (len(PUBLIC_SEEDS) + 1)
    assert len(published) == per_workload * len(GELU.workloads_for(("smoke", "check")))
    assert sum(c.secret for c in published) == len(published) // (len(PUBLIC_SEEDS) + 1)


def test_cuda_plan_checks_bench_once_per_dtype_under_the_secret_seed():
    bench = [c for c in plan_cases(GELU, "cuda", 1) if c.role == "bench"]
    assert bench and all(c.secret for c in bench)
    assert sorted((c.workload, c.dtype) for c in bench) == sorted(
        (w.name, d) for w in GELU.workloads_for(("bench",)) for d in GELU.dtypes)


def test_every_check_workload_gets_one_perturbed_secret_case_per_dtype_last():
    cases = plan_cases(GELU, "cpu", 12345)
    perturbed = [c for c in cases if c.params is not None]
    assert [c.workload for c in perturbed] == [f"{w.name}~p" for w in CHECKS for _ in GELU.dtypes]
    assert [c.dtype for c in perturbed] == [d for _ in CHECKS for d in GELU.dtypes]
    assert all(c.secret and c.role == "check" for c in perturbed)
    assert cases[-len(perturbed):] == perturbed and [c.index for c in cases] == list(range(len(cases)))
    assert "~p/float32/secret seed" in perturbed[0].label()


def test_perturbed_cases_are_deterministic_and_differ_across_secrets():
    assert plan_cases(GELU, "cpu", 7) == plan_cases(GELU, "cpu", 7)
    shapes = {
        secret: [c.params["shape"] for c in plan_cases(GELU, "cpu", secret) if c.params is not None]
        for secret in (1, 2, 3)
    }
    assert shapes[1] != shapes[2] and shapes[2] != shapes[3]
    published = [w.params["shape"] for w in CHECKS]
    assert all(shape != published[i // len(GELU.dtypes)] for i, shape in enumerate(shapes[1]))


def test_workers_rebuild_each_case_workload_from_its_json():
    for case in plan_cases(GELU, "cpu", 99):
        sent = json.loads(json.dumps(case.to_json()))
        assert "secret" not in sent
        workload = workload_of(GELU, sent)
        assert (workload.name, workload.role) == (case.workload, case.role)
        if case.params is None:
            assert "params" not in sent and workload == GELU.workload(case.workload)
        else:
            assert dict(workload.params) == dict(case.params)


def test_secret_seed_changes_only_secret_cases():
    a, b = plan_cases(GELU, "cpu", 1), plan_cases(GELU, "cpu", 2)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert (x.seed == y.seed) is (not x.secret)


def test_seeds_differ_between_cases():
    assert case_seed(1, "gelu", "smoke", "float32") != case_seed(1, "gelu", "smoke", "bfloat16")
    assert len({c.seed for c in plan_cases(GELU, "cpu", 7)}) == len(plan_cases(GELU, "cpu", 7))


def test_the_orchestrator_plans_perturbed_cases_without_torch():
    code = (
        "import sys; from kbx.evaluation.cases import plan_cases; from kbx.tasks.registry import load_suite; "
        "assert all(any(c.params for c in plan_cases(t, 'cpu', 3)) for t in load_suite()); "
        "assert 'torch' not in sys.modules"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_a_randomised_task_is_called_again_on_its_first_cases_inputs_with_the_same_and_a_moved_seed():
    from kbx.evaluation.cases import reproducibility_cases, with_seed_shift
    from kbx.evaluation.orchestrator.conversation import refill_case

    dropout = read_task(default_suite_root() / "Random" / "dropout")
    cases = plan_cases(dropout, "cpu", 99)
    again, reseeded = reproducibility_cases(dropout, cases, 99)
    first = cases[0]
    assert (again.index, reseeded.index) == (len(cases), len(cases) + 1)
    assert again.twin == reseeded.twin == first.index
    assert again.seed == reseeded.seed == first.seed and again.dtype == first.dtype
    assert again.seed_shift == 0 != reseeded.seed_shift
    assert reseeded.seed_shift != reproducibility_cases(dropout, cases, 100)[1].seed_shift  # from the secret seed
    assert "twin" not in reseeded.to_json() and reseeded.to_json()["seed_shift"] == reseeded.seed_shift
    assert with_seed_shift({"seed": 2**31 - 1}, reseeded.to_json())["seed"] == (2**31 - 1 + reseeded.seed_shift) % 2**31
    assert with_seed_shift({"seed": 5}, again.to_json()) == {"seed": 5}
    refill = refill_case(dropout, [*cases, again, reseeded], 99)
    assert refill is not None and refill.twin is None and refill.seed_shift == 0
    assert reproducibility_cases(GELU, plan_cases(GELU, "cpu", 99), 99) == []  # not randomised
