"""Size constants of a problem and the small odd sizes its smoke and check workloads set them to."""

from __future__ import annotations

import ast

from kbx.tasks.kernelbench import sizes


def constants(source: str) -> dict[str, int]:
    return sizes.constants(ast.parse(source))


def test_constants_are_read_from_every_binding_form():
    found = constants(
        "a = 4096\nb = 1024 * 2\nc, d = 16, 32\ne = (7, 128)\nf = a * 2\ng = 1.5\nh = True\ni: int = 99\n"
    )
    assert found == {"a": 4096, "b": 2048, "c": 16, "d": 32, "e[0]": 7, "e[1]": 128, "i": 99}


def test_large_sizes_become_odd_and_small_ones_stay():
    plan = sizes.plan({"batch_size": 4096, "dim": 393216, "kernel_size": 3, "in_channels": 3}, 33, 4)
    assert plan is not None
    assert set(plan.sizes) == {"batch_size", "dim"}
    assert all(v % 2 == 1 for v in plan.sizes.values())


def test_equal_sizes_stay_equal_and_order_is_kept():
    plan = sizes.plan({"seq_len": 512, "max_seqlen": 1024, "in_features": 8192, "out_features": 8192}, 33, 4)
    assert plan is not None
    assert plan.sizes["in_features"] == plan.sizes["out_features"]
    assert plan.sizes["seq_len"] < plan.sizes["max_seqlen"] < plan.sizes["in_features"]


def test_a_size_a_divisor_divides_stays_an_odd_multiple_of_it():
    plan = sizes.plan({"batch_size": 1024, "out_channels": 64, "num_groups": 8}, 33, 4)
    assert plan is not None
    assert plan.sizes["out_channels"] % 8 == 0 and (plan.sizes["out_channels"] // 8) % 2 == 1
    assert plan.multiples == {"out_channels": 8}
    assert plan.sizes["batch_size"] % 2 == 1  # 8 divides 1024 too, but a batch is no channel count


def test_a_large_divisor_becomes_small_and_what_it_divides_follows():
    plan = sizes.plan({"hidden_size": 8192, "num_groups": 512}, 33, 4)
    assert plan is not None
    assert plan.divisors == {"num_groups": sizes.DIVISOR_VALUE}
    assert plan.sizes["hidden_size"] % sizes.DIVISOR_VALUE == 0


def test_sizes_stay_above_the_widest_dilated_window():
    plan = sizes.plan({"height": 512, "kernel_size[0]": 5, "kernel_size[1]": 9, "dilation[0]": 3}, 9, 2)
    assert plan is not None
    assert plan.floor == 3 * (9 - 1) + 1 + 2
    assert plan.sizes["height"] >= plan.floor


def test_nothing_to_shrink_is_no_plan():
    assert sizes.plan({"kernel_size": 3, "batch_size": 16}, 33, 4) is None


def test_rewrite_sets_the_new_values_and_what_derives_from_them_follows():
    module = ast.parse("rows, cols = 4096, 2048\nshape = (rows, 3, 224)\nboth = rows * cols\n")
    namespace: dict[str, object] = {}
    exec(compile(sizes.rewrite(module, {"rows": 9, "cols": 11, "shape[2]": 13}), "<test>", "exec"), namespace)
    assert (namespace["rows"], namespace["cols"], namespace["shape"], namespace["both"]) == (9, 11, (9, 3, 13), 99)


def test_input_elements_follows_names_tuples_and_derived_constants():
    module = ast.parse(
        "b = 8\nd = 100\nshape = (b, 3, 224)\nc = d * 2\n"
        "def get_inputs():\n    return [torch.rand(b, c), torch.randn(*shape)]\n"
    )
    assert sizes.input_elements(module, sizes.constants(module)) == 8 * 3 * 224
    assert sizes.input_elements(module, {**sizes.constants(module), "d": 10_000}) == 8 * 20_000


def test_shrink_picks_the_largest_sizes_within_the_budget():
    module = ast.parse("a = 4096\nb = 4096\nc = 4096\ndef get_inputs():\n    return [torch.rand(a, b, c)]\n")
    plan = sizes.shrink(module, sizes.constants(module), sizes.CHECK)
    assert plan is not None
    assert sizes.input_elements(module, plan.values()) <= sizes.CHECK.budget
    larger = sizes.plan(sizes.constants(module), next(f for f in sizes.CHECK.firsts if f > min(plan.sizes.values())),
                        sizes.CHECK.step)
    assert larger is not None and sizes.input_elements(module, larger.values()) > sizes.CHECK.budget


def test_odd_multiple_at_least():
    assert [sizes.odd_multiple_at_least(t, 1) for t in (8, 9, 10)] == [9, 9, 11]
    assert [sizes.odd_multiple_at_least(t, 4) for t in (1, 5, 13)] == [4, 12, 20]
