import torch

from kbx.timing.measure import time_call
from kbx.timing.refresh import RELATIVE, ValueRefresher
from tests.timing.test_measure import CountingFlusher, FakeClock


def _sample_fingerprint(x):
    return tuple(x.flatten()[::997][:16].tolist())


def test_every_timed_call_sees_new_values_so_a_content_cache_never_hits():
    clock = FakeClock()
    input_sets = [{"input": torch.randn(64, 129, generator=torch.Generator().manual_seed(s))} for s in range(3)]
    seen = []

    def fn(input):
        seen.append(_sample_fingerprint(input))
        clock.advance(1e-3)

    measurement = time_call(fn, input_sets, clock=clock, flusher=CountingFlusher(clock), budget_s=0.2,
                            warmup_s=0.01, refresh=ValueRefresher("cpu"))
    assert len(seen) > 20
    assert len(set(seen)) == len(seen)
    assert "values refreshed per call" in measurement.method["protocol"]


def test_without_a_refresher_the_rotated_sets_repeat():
    clock = FakeClock()
    input_sets = [{"input": torch.randn(8, generator=torch.Generator().manual_seed(s))} for s in range(2)]
    seen = []

    def fn(input):
        seen.append(_sample_fingerprint(input))
        clock.advance(1e-3)

    time_call(fn, input_sets, clock=clock, flusher=CountingFlusher(clock), budget_s=0.05, warmup_s=0.0)
    assert len(set(seen)) == 2


def test_refresh_changes_every_element_a_little_and_keeps_what_the_work_depends_on():
    x = torch.randn(300, 70, dtype=torch.float32).t()  # non-contiguous
    x[0, :5] = torch.tensor([0.0, float("inf"), float("-inf"), float("nan"), -2.0])
    index = torch.randint(0, 10, (50,))
    expanded = torch.randn(1, 7).expand(5, 7)
    before = x.clone(), index.clone(), expanded.clone()
    ValueRefresher("cpu", seed=3)({"x": x, "index": index, "b": expanded, "alpha": 2.5})
    assert x.stride() == before[0].stride()
    finite = torch.isfinite(before[0]) & (before[0] != 0)
    ratio = x[finite] / before[0][finite]
    assert bool(((ratio - 1).abs() <= RELATIVE * 1.0001).all())
    assert float((ratio != 1).float().mean()) > 0.99
    assert torch.equal(torch.sign(x[finite]), torch.sign(before[0][finite]))
    assert x[0, 0] == 0 and x[0, 1] == float("inf") and x[0, 2] == float("-inf") and torch.isnan(x[0, 3])
    assert torch.equal(index, before[1])
    assert torch.equal(expanded, before[2])  # elements share memory: left alone


def test_bf16_inputs_change_in_most_elements_and_large_tensors_are_refreshed_in_chunks(monkeypatch):
    import kbx.timing.refresh as refresh

    monkeypatch.setattr(refresh, "CHUNK_ELEMENTS", 1000)
    x = torch.randn(97, 61).to(torch.bfloat16)
    before = x.clone()
    ValueRefresher("cpu")({"x": x})
    assert float((x != before).float().mean()) > 0.6


def test_a_patched_tensor_method_does_not_disable_a_refresher_built_before(monkeypatch):
    refresher = ValueRefresher("cpu")
    monkeypatch.setattr(torch.Tensor, "mul_", lambda self, other: self)
    monkeypatch.setattr(torch.Tensor, "is_floating_point", lambda self: False)
    x = torch.randn(1000)
    before = x.clone()
    refresher({"x": x})
    assert not torch.equal(x, before)


def test_inputs_given_a_range_stay_in_it_and_the_others_do_not():
    """bernoulli's probabilities include exact 1s: scaled by a factor above 1 they would make torch raise."""
    p = torch.tensor([0.0, 0.5, 1.0] * 1000)
    inputs = {"input": p.clone(), "other": p.clone()}
    refresh = ValueRefresher("cpu")
    refresh.keep_within({"input": [0.0, 1.0]})
    for _ in range(20):
        refresh(inputs)
    assert inputs["input"].min() >= 0 and inputs["input"].max() == 1
    assert inputs["input"][1::3].ne(0.5).all()  # still refreshed inside the range
    assert inputs["other"].max() > 1
