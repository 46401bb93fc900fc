"""Log-softmax along one dimension.

    log_softmax(x, dim)[..., j, ...] = x_j - log(sum_k exp(x_k))
                                     = (x_j - m) - log(sum_k exp(x_k - m)),   m = max_k x_k   (over `dim`)

Mirrors `torch.log_softmax(input, dim)` (= `torch.nn.functional.log_softmax(input, dim)`). The output has the
input's shape and dtype; fp16 inputs are computed in fp32 and rounded once, as PyTorch does. The second form is
the stable one: it never exponentiates a positive number, and it stays finite where the softmax itself
underflows to 0 (log_softmax = x_j - m - log(s) is a moderate negative number there, whereas log(softmax)
is -inf).

Inputs exercise that: slices carry a large offset (uniform in [-1000, 1000]), so exp(x) overflows without the
max subtraction; ~0.5% of the entries are pushed 150 below or above the rest of their slice, so exp(x_j - m)
underflows to 0 in fp32 while the exact result is about -150; entries equal to -inf appear throughout (their
result is exactly -inf), and some slices are -inf everywhere except their last element (result exactly 0 there),
so an online kernel must survive a block that is entirely -inf; no slice is -inf everywhere. Workloads reduce the
last, first and middle dimensions (negative `dim` too), slices longer than one block (4097, 40000), many tiny
slices, and transposed or strided (non-contiguous) inputs.
`check_last_3d` reduces the last dim of a 3-D input: a wrapper that launches shape[0] rows of stride(0), as
Triton's softmax tutorial does for 2-D input, covers only every shape[1]-th row there (every other workload along
the last dim is 2-D). `check_4d_dim1` reduces dim 1 of a 4-D input, the one workload with more than one dim after
the reduced one: a strided kernel that steps along `dim` by shape[dim + 1] (or shape[-1]), right for every other
workload, mixes slices there.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "log_softmax",
    "category": "Normalization",
    "level": 1,
    "signature": "(input, dim)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["log_softmax", "softmax", "softmin", "logsumexp", "exp", "exp2", "expm1", "sum", "nansum",
                  "cross_entropy", "nll_loss"],
    # No perturbed truth: log_softmax ignores a shift of a slice, and moving inputs offset by up to 1000 by a few
    # ulps of themselves would excuse the error wrong/subtracts_rounded_logsumexp makes (ulp(1000) on every output).
    "contract": {"kind": "allclose", "perturbed_truth": False},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 100], "dim": -1, "offset": 1000.0}},
        {"name": "smoke_dim0", "role": "smoke", "params": {"shape": [100, 8], "dim": 0, "offset": 0.0}},
        {"name": "check_long_rows", "role": "check",
         "params": {"shape": [33, 4097], "dim": -1, "offset": 1000.0}},
        {"name": "check_very_long_rows", "role": "check",
         "params": {"shape": [3, 40000], "dim": 1, "offset": 1000.0}},
        {"name": "check_short_rows", "role": "check", "params": {"shape": [257, 7], "dim": -1, "offset": 0.0}},
        {"name": "check_last_3d", "role": "check", "params": {"shape": [3, 5, 129], "dim": 2, "offset": 1000.0}},
        {"name": "check_middle", "role": "check",
         "params": {"shape": [4, 130, 33], "dim": 1, "offset": 1000.0}},
        {"name": "check_dim0", "role": "check", "params": {"shape": [129, 65], "dim": 0, "offset": 0.0}},
        {"name": "check_long_dim0", "role": "check",
         "params": {"shape": [9000, 5], "dim": 0, "offset": 1000.0}},
        {"name": "check_4d_dim1", "role": "check",
         "params": {"shape": [3, 33, 5, 7], "dim": 1, "offset": 1000.0}},
        {"name": "check_neg_strided", "role": "check",
         "params": {"shape": [5, 67, 31], "dim": -2, "offset": 1000.0, "layout": "strided"}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [127, 129], "dim": -1, "offset": 0.0, "layout": "transposed"}},
        {"name": "bench", "role": "bench", "params": {"shape": [32768, 16384], "dim": -1, "offset": 1000.0}},
        {"name": "bench_vocab", "role": "bench", "params": {"shape": [4096, 131072], "dim": -1, "offset": 0.0}},
    ],
}


def reference(input, dim):
    return torch.log_softmax(input, dim)


def truth_rows(input, dim):
    """Along any dimension but the first, each row's outputs depend on that row alone: the float64 truth may run by
    blocks of rows."""
    return ("input",) if input.dim() > 1 and dim % input.dim() != 0 else None


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dim = p["dim"] % len(shape)
    slice_shape = [1 if d == dim else s for d, s in enumerate(shape)]  # one entry per slice
    length = shape[dim]

    x = inputs.randn(shape, "float32", generator, scale=3.0)
    x = inputs.with_outliers(x, generator, fraction=5e-3, magnitude=150.0)
    if p["offset"]:
        x += inputs.uniform(slice_shape, -p["offset"], p["offset"], "float32", generator)

    # -inf entries: 5% at random, plus ~10% of the slices (always the first one) that are -inf everywhere
    # except their last element. The last element of every slice stays finite.
    position = torch.arange(length, device=generator.device).view([-1] + [1] * (len(shape) - dim - 1))
    masked_prefix = inputs.uniform(slice_shape, 0.0, 1.0, "float32", generator) < 0.1
    masked_prefix.view(-1)[0] = True
    neg_inf = (inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.05) | masked_prefix
    neg_inf &= position < length - 1
    x = x.masked_fill(neg_inf, float("-inf")).to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "dim": p["dim"]}
