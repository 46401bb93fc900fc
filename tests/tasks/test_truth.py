import pytest
import torch
import torch.nn.functional as F

from kbx.tasks.truth import float64_reference, perturbed, task_dtype


def test_float32_steps_of_a_reference_are_widened_to_float64():
    def reference(input, weight):
        # computes in fp32 on purpose, as many references do for accuracy at a narrow dtype
        out = F.log_softmax(input.float() @ weight.to(torch.float32).T, dim=-1, dtype=torch.float32)
        return out.to(input.dtype), out.sum(dtype=torch.float32), torch.zeros(2, dtype=torch.float16)

    x, w = torch.randn(4, 8, dtype=torch.bfloat16), torch.randn(3, 8, dtype=torch.bfloat16)
    outputs = float64_reference(reference, {"input": x, "weight": w}, torch.bfloat16)
    assert [o.dtype for o in outputs] == [torch.float64] * 3
    exact = F.log_softmax(x.double() @ w.double().T, dim=-1)
    assert torch.equal(outputs[0], exact)


def test_integer_inputs_stay_and_the_case_dtype_is_known_inside_the_run():
    seen = []

    def reference(input, index):
        seen.append((task_dtype(input), index.dtype))
        return input[index]

    x, index = torch.randn(5, dtype=torch.float16), torch.tensor([4, 0])
    (out,) = [float64_reference(reference, {"input": x, "index": index}, torch.float16)]
    assert out.dtype == torch.float64 and seen == [(torch.float16, torch.int64)]
    assert task_dtype(x) == torch.float16 and task_dtype(x.double()) == torch.float64  # outside a run: its own


def test_a_rounding_the_definition_makes_is_kept_in_the_truth():
    from kbx.tasks.truth import stored

    def reference(input, residual):
        h = stored(input + residual)  # the updated residual, rounded to the dtype by definition
        return h * 3, (input + residual) * 3

    x, r = torch.tensor([1.0], dtype=torch.bfloat16), torch.tensor([2.0**-9], dtype=torch.bfloat16)
    kept, widened = float64_reference(reference, {"input": x, "residual": r}, torch.bfloat16)
    assert kept.item() == 3.0 and widened.item() == 3 * (1 + 2.0**-9)
    assert stored(x + r).dtype == torch.bfloat16  # outside a truth run: the tensor itself


def test_perturbed_inputs_move_every_float_element_by_delta_of_itself_and_nothing_else():
    from kbx.tasks.truth import perturbed

    x, index = torch.randn(1000), torch.arange(3)
    moved = perturbed({"input": x, "index": index, "eps": 1e-5}, 1e-3, seed=7)
    ratio = moved["input"] / x.double()
    assert moved["input"].dtype == torch.float64 and torch.allclose((ratio - 1).abs(), torch.tensor(1e-3).double())
    assert 300 < int((ratio > 1).sum()) < 700  # up or down at random
    assert moved["index"] is index and moved["eps"] == 1e-5  # float arguments move in runs of their own
    assert torch.equal(perturbed({"input": x}, 1e-3, seed=7)["input"], moved["input"])  # drawn from the seed


def test_float_arguments_move_alone_and_any_two_together_in_one_run_and_apart_in_another():
    from kbx.tasks.truth import argument_moves, argument_perturbations, float_arguments

    x = torch.randn(10)
    inputs = {"x": x, "beta1": 0.9, "beta2": 0.999, "step": 3, "flag": True}
    assert float_arguments(inputs) == ["beta1", "beta2"] and argument_perturbations(0) == []
    assert len(argument_perturbations(1)) == 1 and len(argument_perturbations(5)) == 4
    signs = []
    for move in argument_perturbations(2):
        moved = argument_moves(inputs, 1e-3, seed=5, flips=move.flips).applied(inputs)
        steps = [moved[name] / inputs[name] - 1 for name in ("beta1", "beta2")]
        assert all(abs(abs(v) - 1e-3) < 1e-12 for v in steps) and moved["x"] is x and moved["step"] == 3
        signs.append(steps[0] * steps[1] > 0)
    assert any(signs) and not all(signs)  # beta1 and beta2 move together in one run and apart in another


def test_float_defaults_the_reference_leaves_out_are_named_for_the_perturbed_runs():
    from kbx.tasks.truth import with_float_defaults

    def reference(param, step, lr=0.001, beta2=0.999, amsgrad=False, count=3, *rest, scale=2.0, **more):
        return param

    x = torch.randn(3)
    assert with_float_defaults(reference, {"param": x, "step": 4, "lr": 0.01}) == {
        "param": x, "step": 4, "lr": 0.01, "beta2": 0.999, "scale": 2.0}
    assert with_float_defaults(torch.relu, {"input": x}) == {"input": x}  # no float default, or no signature


def test_perturbing_a_chunk_at_a_time_gives_the_one_expressions_values_bit_for_bit(monkeypatch):
    from kbx.tasks import truth

    monkeypatch.setattr(truth, "_CHUNK", 100)  # chunks that do not divide the inputs
    x, y, z = torch.randn(7, 53), torch.randn(999, dtype=torch.float16), torch.randn(40, 9).t()  # z: strided
    for flips in range(8):
        moved = truth.perturbed({"x": x, "y": y, "z": z}, 2.0**-10, seed=11, flips=flips)
        for index, (name, value) in enumerate({"x": x, "y": y, "z": z}.items()):
            generator = torch.Generator().manual_seed(11 + index)
            signs = torch.randint(0, 2, value.shape, generator=generator).double() * 2 - 1
            whole = value.double() * (1 + 2.0**-10 * signs * (-1.0 if flips >> index & 1 else 1.0))
            assert torch.equal(moved[name], whole)


def test_any_two_inputs_move_together_in_one_run_and_apart_in_another():
    from kbx.tasks.truth import perturbations

    for count in range(2, 9):
        patterns = perturbations(count)
        assert len(patterns) == 2 + (count - 1).bit_length()
        for i in range(count):
            for j in range(i):
                relative = {(p.flips >> i & 1) ^ (p.flips >> j & 1) for p in patterns}
                assert relative == {0, 1}, (count, i, j)
    assert len({p.offset for p in perturbations(1)}) == 2  # one input: two independent draws


def test_the_checkered_run_moves_any_two_neighbours_apart_where_the_first_run_moved_them_together():
    from kbx.tasks.truth import perturbations, perturbed

    x = torch.randn(5, 6, 7).permute(2, 0, 1)  # strided: the checkerboard is over coordinates, not memory
    for count in (1, 3):
        first, checkered = perturbations(count)[0], perturbations(count)[-1]
        assert checkered.checker and not first.checker and checkered.offset == first.offset == 0
    up = perturbed({"x": x}, 0.25, seed=3)["x"] > x.double()
    up_checkered = perturbed({"x": x}, 0.25, seed=3, checker=True)["x"] > x.double()
    coords = torch.stack(torch.meshgrid(*(torch.arange(n) for n in x.shape), indexing="ij")).sum(0)
    assert torch.equal(up ^ up_checkered, coords % 2 == 1)
    for dim in range(3):  # neighbours along each dimension: together in one run exactly where apart in the other
        ahead = [slice(None)] * 3
        behind = [slice(None)] * 3
        ahead[dim], behind[dim] = slice(1, None), slice(None, -1)
        together = up[tuple(ahead)] == up[tuple(behind)]
        assert torch.equal(together, up_checkered[tuple(ahead)] != up_checkered[tuple(behind)])


def test_a_truth_run_notes_the_roundings_its_definition_makes():
    from kbx.tasks.truth import stored

    x = torch.full((2,), 1.0 + 2.0**-10, dtype=torch.bfloat16)
    rounded: list[torch.Tensor] = []
    float64_reference(lambda input: stored(input + 2.0**-9) * 2, {"input": x}, torch.bfloat16, rounded)
    assert len(rounded) == 1 and rounded[0].dtype == torch.bfloat16
    assert torch.equal(rounded[0], (x.double() + 2.0**-9).to(torch.bfloat16))
    rounded.clear()
    float64_reference(lambda input: input * 2, {"input": x}, torch.bfloat16, rounded)
    assert rounded == []


def test_a_perturbed_run_replays_what_the_truth_run_stored_moved_like_one_more_input():
    from kbx.tasks.truth import Replay, stored

    x = torch.randn(100, dtype=torch.float64).to(torch.bfloat16)
    rounded: list[torch.Tensor] = []
    float64_reference(lambda input: stored(input * 3) + 1, {"input": x}, torch.bfloat16, rounded)
    seen = []
    replay = Replay(rounded, 2.0**-12, seed=5, flips=0b10, checker=False, first=1)
    # the run's own value (here moved far off) is not rounded again: the stored one comes back, moved by delta
    float64_reference(lambda input: seen.append(stored(input * 3 + 0.01)), {"input": x}, torch.bfloat16, replay=replay)
    moved = perturbed({"a": x, "b": rounded[0]}, 2.0**-12, seed=5, flips=0b10)["b"]
    assert torch.equal(seen[0], moved)
    with pytest.raises(ValueError, match="stores other values"):  # a second rounding the truth run never made
        float64_reference(lambda input: stored(input), {"input": x}, torch.bfloat16, replay=replay)




def test_moves_applied_a_block_of_rows_at_a_time_give_the_whole_runs_values_bit_for_bit():
    from kbx.tasks.truth import moves

    x, w = torch.randn(9, 5), torch.randn(5)
    inputs = {"x": x, "w": w, "eps": 1e-5}
    drawn = moves(inputs, 2.0**-10, seed=3, flips=0b11, checker=True)
    whole = drawn.applied(inputs)
    for rows in (slice(0, 4), slice(4, 9)):
        part = drawn.applied(inputs, rows, ("x",))
        assert torch.equal(part["x"], whole["x"][rows]) and torch.equal(part["w"], whole["w"])
        assert part["eps"] == whole["eps"] == 1e-5
