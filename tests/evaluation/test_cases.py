from kbx.evaluation.cases import PUBLIC_SEEDS, case_seed, plan_cases
from kbx.tasks.meta import read_task
from kbx.tasks.registry import default_suite_root

GELU = read_task(default_suite_root() / "Activation" / "gelu")


def test_cpu_plan_skips_bench_and_covers_every_dtype_and_seed():
    cases = plan_cases(GELU, "cpu", secret_seed=12345)
    roles = {GELU.workload(c.workload).role for c in cases}
    assert roles == {"smoke", "check"}
    per_workload = len(GELU.dtypes) * (len(PUBLIC_SEEDS) + 1)
    assert len(cases) == per_workload * len(GELU.workloads_for(("smoke", "check")))
    assert sum(c.secret for c in cases) == len(cases) // (len(PUBLIC_SEEDS) + 1)


def test_cuda_plan_includes_bench():
    assert any(GELU.workload(c.workload).role == "bench" for c in plan_cases(GELU, "cuda", 1))


def test_secret_seed_changes_only_secret_cases():
    a, b = plan_cases(GELU, "cpu", 1), plan_cases(GELU, "cpu", 2)
    for x, y in zip(a, b):
        assert (x.seed == y.seed) is (not x.secret)


def test_seeds_differ_between_cases():
    assert case_seed(1, "gelu", "smoke", "float32") != case_seed(1, "gelu", "smoke", "bfloat16")
    assert len({c.seed for c in plan_cases(GELU, "cpu", 7)}) == len(plan_cases(GELU, "cpu", 7))
