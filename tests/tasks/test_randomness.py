"""The statistics shared by the Random tasks: a Bernstein bound, the orders a kernel may walk, serial dependence."""

import math

import torch

from kbx.tasks import randomness


def test_bernstein_grows_with_variance_and_confidence():
    assert randomness.bernstein(100.0, 1.0, 1e-3) < randomness.bernstein(400.0, 1.0, 1e-3)
    assert randomness.bernstein(100.0, 1.0, 1e-3) < randomness.bernstein(100.0, 1.0, 1e-9)
    # bound 0: the Gaussian-like part alone, sqrt(2 V log(2/delta))
    assert math.isclose(randomness.bernstein(50.0, 0.0, 0.01), math.sqrt(2 * 50.0 * math.log(200.0)))


def test_orders_add_the_memory_order_only_where_it_differs():
    x = torch.arange(12.0).reshape(3, 4)
    assert [name for name, _ in randomness.orders(x, x)] == ["logical"]
    t = x.t()
    walked = dict(randomness.orders(t, t, prefix=5))
    assert walked["logical"][0].tolist() == [0.0, 4.0, 8.0, 1.0, 5.0]
    assert walked["memory"][0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]


def test_serial_dependence_flags_a_pattern_and_passes_independent_draws():
    generator = torch.Generator().manual_seed(0)
    iid = torch.rand(1 << 14, generator=generator, dtype=torch.float64) - 0.5
    assert randomness.serial_dependence(iid, torch.full_like(iid, 1 / 12), 0.5) is None
    repeated = iid[: 1 << 10].repeat(16)  # a generator that restarts every 1024 elements
    why = randomness.serial_dependence(repeated, torch.full_like(repeated, 1 / 12), 0.5)
    assert why is not None and why.startswith("lag 1024:")
