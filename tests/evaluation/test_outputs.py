import math

import torch

from kbx.evaluation.outputs import (
    changed_inputs,
    malformed_case_file,
    pack_outputs,
    shared_count,
    snapshot_inputs,
    unpack_output,
)


def test_changed_inputs_names_the_mutated_tensor():
    inputs = {"a": torch.randn(4), "b": torch.tensor([math.nan, 1.0]), "k": 3}
    pristine = snapshot_inputs(inputs)
    assert changed_inputs(pristine, inputs) == []
    inputs["a"][0] += 1
    assert changed_inputs(pristine, inputs) == ["a"]


def test_non_tensor_outputs_become_named_markers():
    packed = pack_outputs((torch.ones(2), None, 3))
    assert isinstance(packed[0], torch.Tensor)
    assert [unpack_output(p).type_name for p in packed[1:]] == ["NoneType", "int"]


def test_tensor_subclasses_are_not_passed_through():
    class Sneaky(torch.Tensor):
        pass

    (packed,) = pack_outputs(torch.ones(2).as_subclass(Sneaky))
    assert unpack_output(packed).type_name == "Sneaky"


def test_forged_output_items_become_markers():
    assert unpack_output("not a tensor").type_name == "str"
    assert unpack_output({"type": 3}).type_name == "3"


def test_a_case_file_holds_only_what_the_worker_writes():
    assert malformed_case_file({"outputs": pack_outputs((torch.ones(2), 3, None))}) == ""
    assert malformed_case_file([torch.ones(2)]) == "the file does not hold a list of outputs"
    assert "layout torch.sparse_coo" in malformed_case_file({"outputs": [torch.ones(2).to_sparse()]})
    assert "holds a str" in malformed_case_file({"outputs": ["import os"]})
    assert "holds a dict" in malformed_case_file({"outputs": [{"type": "int", "value": 3}]})


def _shared(**block):
    return {"type": "shared", "block": {"size": 2 << 20, "nbytes": 8, "dtype": "float32", "shape": [2], **block}}


def test_a_shared_marker_is_well_formed_only_with_every_field_of_its_block():
    assert malformed_case_file({"outputs": [_shared(), torch.ones(2)]}) == ""
    assert shared_count({"outputs": [_shared(), torch.ones(2), _shared(), {"type": "shared"}]}) == 2
    for broken in (_shared(size="big"), _shared(shape=[2.0]), _shared(extra=1),
                   {"type": "shared", "block": [1]}):
        assert "which the worker never writes" in malformed_case_file({"outputs": [broken]}), broken


def test_a_shared_marker_unpacks_through_the_callable_given(monkeypatch):
    import kbx.evaluation.outputs as outputs

    seen = []
    assert torch.equal(unpack_output(_shared(), lambda block: seen.append(block) or torch.zeros(2)), torch.zeros(2))
    assert seen == [_shared()["block"]]
    assert unpack_output(_shared()).type_name == "shared"  # no way to read it: a stand-in, which never matches
    monkeypatch.setattr(outputs, "shareable", lambda item: item.numel() > 2)
    packed = pack_outputs((torch.ones(3), torch.ones(2)), lambda tensor: {"size": 1})
    assert packed[0] == {"type": "shared", "block": {"size": 1}} and torch.equal(packed[1], torch.ones(2))
    declined = pack_outputs(torch.ones(3), lambda tensor: None)
    assert torch.equal(declined[0], torch.ones(3))
