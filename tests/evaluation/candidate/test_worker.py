import torch

from kbx.evaluation.candidate.worker import refill


def test_refill_writes_new_values_into_the_same_tensors_keeping_their_version():
    target = {"x": torch.zeros(4), "alpha": 2.0}
    x = target["x"]
    version = x._version
    out = refill(target, {"x": torch.arange(4.0), "alpha": 2.0})
    # Same object, same version counter: by identity, the refilled call looks exactly like the one before it.
    assert out["x"] is x and torch.equal(x, torch.arange(4.0)) and x._version == version


def test_an_expanded_input_that_cannot_be_written_in_place_is_replaced():
    target = {"b": torch.zeros(1, 3).expand(2, 3)}
    fresh = {"b": torch.ones(1, 3).expand(2, 3)}
    out = refill(target, fresh)
    assert out["b"] is fresh["b"] and torch.equal(out["b"], torch.ones(2, 3))
