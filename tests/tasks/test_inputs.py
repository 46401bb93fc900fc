"""`inputs` helpers: `late_extremum`, `close_values`, `signs` and the `seq_slice` and `channel_slice` layouts."""

import pytest
import torch

from kbx.tasks import inputs


def generator():
    return torch.Generator().manual_seed(7)


@pytest.mark.parametrize("length", [9001, 8193, 4097, 129, 2])
def test_the_maximum_is_unique_and_past_the_largest_power_of_two(length):
    x = inputs.randn([6, length], "float32", generator())
    y = inputs.late_extremum(x, [-1], generator())
    top = y.amax(dim=1, keepdim=True)
    assert torch.equal((y == top).sum(dim=1), torch.ones(6, dtype=torch.int64))
    prefix = 2 ** ((length - 1).bit_length() - 1)
    assert (y.argmax(dim=1) >= prefix).all()
    assert torch.equal(y.amax(dim=1), x.amax(dim=1) + 1)


def test_several_dims_count_in_their_order_and_the_rest_is_unchanged():
    x = inputs.randn([5, 7, 33], "float32", generator())
    y = inputs.late_extremum(x, [2, 0], generator(), lowest=True)
    slices = y.permute(1, 0, 2).reshape(7, -1)  # reduced dims 0 and 2, in that order
    assert (slices.argmin(dim=1) >= 128).all()
    assert (y != x).sum() == 7


def test_magnitude_keeps_the_sign_and_tops_every_magnitude():
    x = inputs.randn([4, 9001], "float32", generator(), offset=-0.5)
    y = inputs.late_extremum(x, [1], generator(), magnitude=True)
    at = y.abs().argmax(dim=1)
    assert (at >= 8192).all()
    assert torch.equal(torch.sign(y.gather(1, at[:, None])), torch.sign(x.gather(1, at[:, None])))


def test_an_empty_dim_list_means_every_dim():
    x = inputs.randn([3, 17, 129], "float32", generator())
    assert inputs.late_extremum(x, [], generator()).flatten().argmax() >= 4096


def test_close_values_are_distinct_in_float32_and_tie_in_narrower_dtypes():
    x = inputs.close_values([64, 500], [64, 1], torch.Generator().manual_seed(3))
    assert x.dtype == torch.float32 and bool(((x.abs() >= 1000) & (x.abs() < 1004)).all())
    signs = torch.sign(x)
    assert bool((signs == signs[:, :1]).all()) and 0 < int((signs[:, 0] < 0).sum()) < 64  # one sign per slice
    for row in x:
        assert row.unique().numel() >= 0.98 * row.numel()  # nearly all distinct in float32 (ulp 6e-5 there)
        assert row.half().unique().numel() <= 9 and row.bfloat16().unique().numel() <= 2


def test_signs_are_never_zero_and_follow_the_uniform_stream(monkeypatch):
    shape = [1000]
    drawn = inputs.uniform(shape, -1.0, 1.0, "float32", torch.Generator().manual_seed(3))
    assert torch.equal(inputs.signs(shape, torch.Generator().manual_seed(3)), torch.where(drawn < 0, -1.0, 1.0))
    # A draw of exactly 0, which `.sign()` would turn into a zero diagonal entry, gives +1.
    monkeypatch.setattr(inputs, "uniform", lambda shape, low, high, dtype, generator: torch.zeros(shape))
    assert torch.equal(inputs.signs(shape, torch.Generator()), torch.ones(shape))


@pytest.mark.parametrize("shape", [[3, 33, 65], [2, 3, 5, 7]])
def test_seq_slice_keeps_the_values_and_its_leading_dims_do_not_merge(shape):
    x = inputs.randn(shape, "float32", generator())
    y = inputs.layout(x, "seq_slice")
    assert torch.equal(y, x) and y.shape == x.shape and y.stride(-1) == 1
    assert y.stride(-3) != shape[-2] * y.stride(-2)  # the batch stride is not S rows
    with pytest.raises(RuntimeError):
        y.view(-1, shape[-1])
    flat = y.reshape(-1, shape[-1])
    assert flat.data_ptr() != y.data_ptr() and torch.equal(flat, x.reshape(-1, shape[-1]))
    # Rows read at m * stride(-2) (no reshape) are right for the first sequence only.
    stepped = y.as_strided(flat.shape, (y.stride(-2), 1))
    assert torch.equal(stepped[: shape[-2]], flat[: shape[-2]]) and not torch.equal(stepped, flat)


def test_seq_slice_needs_three_dims():
    with pytest.raises(ValueError):
        inputs.layout(torch.zeros(4, 5), "seq_slice")


@pytest.mark.parametrize("shape", [[3, 4, 5, 7], [2, 3, 9]])
def test_channel_slice_keeps_the_values_with_unit_last_stride_but_samples_2c_planes_apart(shape):
    x = inputs.randn(shape, "float32", generator())
    y = inputs.layout(x, "channel_slice")
    assert torch.equal(y, x) and y.shape == x.shape and y.stride()[1:] == x.stride()[1:]
    assert y.stride(0) == 2 * x.stride(0) and not y.is_contiguous()
    # Read as dense memory (planes C * S apart), the second sample is the zeros of the other half.
    dense = y.as_strided(x.shape, x.stride())
    assert torch.equal(dense[0], x[0]) and not dense[1].any()


def test_channel_slice_needs_two_dims():
    with pytest.raises(ValueError):
        inputs.layout(torch.zeros(4), "channel_slice")
