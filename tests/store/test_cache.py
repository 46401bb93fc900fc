from kbx.store.cache import cache_key, device_fingerprint, harness_version

ENV = {"device": "cuda", "gpu": "NVIDIA H100 80GB HBM3", "torch": "2.11.0", "triton": "3.6.0", "cuda": "13.0",
       "host": "box-1", "compute_capability": "9.0"}


def test_the_key_depends_on_candidate_task_device_and_timing_but_not_the_host():
    base = cache_key("c1", "t1", ENV, {"rounds": 3})
    assert cache_key("c1", "t1", {**ENV, "host": "box-2"}, {"rounds": 3}) == base
    assert cache_key("c2", "t1", ENV, {"rounds": 3}) != base
    assert cache_key("c1", "t2", ENV, {"rounds": 3}) != base
    assert cache_key("c1", "t1", {**ENV, "gpu": "NVIDIA H200"}, {"rounds": 3}) != base
    assert cache_key("c1", "t1", {**ENV, "triton": "3.7.0"}, {"rounds": 3}) != base
    assert cache_key("c1", "t1", ENV, None) != base


def test_the_harness_version_names_kbx_and_its_verdict_code():
    version = harness_version()
    assert version.startswith("0.") and "+" in version
    assert "host" not in device_fingerprint(ENV)


def test_the_key_depends_on_a_policy_other_than_a_kernels():
    base = cache_key("c1", "t1", ENV, None)
    assert cache_key("c1", "t1", ENV, None, policy=None) == base
    assert cache_key("c1", "t1", ENV, None, policy="reference-code") != base
