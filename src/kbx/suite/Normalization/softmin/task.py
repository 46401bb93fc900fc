"""Softmin along one dimension: the softmax of the negated input.

    softmin(x, dim)[..., j, ...] = exp(-x_j) / sum_k exp(-x_k)
                                 = exp(m - x_j) / sum_k exp(m - x_k),   m = min_k x_k       (over `dim`)

Mirrors `torch.nn.functional.softmin(input, dim)` (dtype=None). The output has the input's shape and dtype;
bf16 and fp16 inputs are computed in fp32 and rounded once, as PyTorch does. The stable form subtracts the slice
MINIMUM: every exponent is then <= 0. Reusing a softmax kernel's max here exponentiates m_max - x_j, which
overflows as soon as a slice spans more than ~88.

Inputs exercise that: slices carry a large offset (uniform in [-1000, 1000]), so exp(-x) overflows or
underflows without the shift; ~0.5% of the entries are pushed 150 below or above the rest of their slice;
entries equal to +inf appear throughout (their probability is exactly 0), and some slices are +inf everywhere
except their last element (probability exactly 1 there), so an online kernel must survive a block that is
entirely +inf; no slice is +inf everywhere. Workloads reduce the last, first and middle dimensions (negative
`dim` too), slices longer than one block (4097, 40000), many tiny slices, and transposed or strided
(non-contiguous) inputs.
`check_last_3d` reduces the last dim of a 3-D input: a wrapper that launches shape[0] rows of stride(0), as
Triton's softmax tutorial does for 2-D input, covers only every shape[1]-th row there (every other workload along
the last dim is 2-D). `check_4d_dim1` reduces dim 1 of a 4-D input, the one workload with more than one dim after
the reduced one: a strided kernel that steps along `dim` by shape[dim + 1] (or shape[-1]), right for every other
workload, mixes slices there.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs

TASK = {
    "name": "softmin",
    "category": "Normalization",
    "level": 1,
    "signature": "(input, dim)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["softmin", "softmax", "log_softmax", "logsumexp", "exp", "exp2", "expm1", "sum", "nansum",
                  "sigmoid"],
    "contract": {"kind": "allclose"},
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
        {"name": "bench_middle", "role": "bench",
         "params": {"shape": [64, 4096, 2048], "dim": 1, "offset": 0.0}},
    ],
}


def reference(input, dim):
    return F.softmin(input, dim)


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

    # +inf entries: 5% at random, plus ~10% of the slices (always the first one) that are +inf everywhere
    # except their last element. The last element of every slice stays finite.
    position = torch.arange(length, device=generator.device).view([-1] + [1] * (len(shape) - dim - 1))
    masked_prefix = inputs.uniform(slice_shape, 0.0, 1.0, "float32", generator) < 0.1
    masked_prefix.view(-1)[0] = True
    pos_inf = (inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.05) | masked_prefix
    pos_inf &= position < length - 1
    x = x.masked_fill(pos_inf, float("inf")).to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "dim": p["dim"]}
