"""The Ray executor on a local Ray cluster with fake GPUs, interpreter mode: the same statuses as the local one."""

from __future__ import annotations

import json

import pytest

from kbx.running.runner import RunOptions, run_method

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.slow

# Six tasks, one per kind of output (elementwise, a fused linear, a scalar loss, integers, an int8 matmul, indices):
# the sixteen this test ran until session 25 cost CI about a minute more and went through the same code.
STARTER = ["relu", "linear_gelu", "cross_entropy", "argmax", "matmul_w8a8", "index_select"]


@pytest.fixture(scope="module")
def local_cluster():
    # Two fake GPUs: Ray gives each actor one (CUDA_VISIBLE_DEVICES), the work itself runs on the CPU interpreter.
    ray.init(num_cpus=2, num_gpus=2, include_dashboard=False, log_to_driver=False,
             object_store_memory=200 * 1024 * 1024)
    yield
    ray.shutdown()


def _statuses(out):
    return {r["task"]: r["status"] for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}


def test_the_ray_executor_gives_the_local_statuses_on_the_starter_suite(local_cluster, tmp_path):
    base = dict(device="cpu", tasks=tuple(STARTER), store=tmp_path / "k.db", use_cache=False, secret_seed=7)
    local = run_method("reference", RunOptions(out_dir=tmp_path / "local", **base), progress=None)
    remote = run_method("reference", RunOptions(out_dir=tmp_path / "ray", executor="ray", **base), progress=None)
    assert _statuses(tmp_path / "ray") == _statuses(tmp_path / "local")
    assert len(remote.rows) == len(local.rows) == len(STARTER)
    gpus = {row["environment"].get("ray_gpu") for row in remote.rows}
    assert gpus <= {"0", "1"} and len(gpus) == 2, "both actors, each on its own (fake) GPU, took work"
