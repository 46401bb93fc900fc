"""Softmax along one dimension.

    softmax(x, dim)[..., j, ...] = exp(x[..., j, ...]) / sum_k exp(x[..., k, ...])     (sum over `dim`)

Mirrors `torch.softmax(input, dim)`. The output has the input's shape and dtype; bf16 inputs are computed in
fp32 and rounded once, as PyTorch does. Softmax is invariant to adding a constant to a slice, and a stable
kernel subtracts the slice maximum before exponentiating.

Inputs exercise that: many slices carry a large offset (uniform in [-1000, 1000]), so exp(x) overflows to inf
or underflows to 0 without the max subtraction. Entries equal to -inf appear throughout (their probability is
exactly 0), and some slices are -inf everywhere except their last element (probability exactly 1 there), so an
online softmax must survive a block that is entirely -inf; no slice is -inf everywhere. Workloads reduce the
last, first and middle dimensions (negative `dim` too), slices far longer than one block (4097, 40000 and a
131072-long bench), many tiny slices, and transposed or strided (non-contiguous) inputs. `bench_over_2_31`
(65537 x 32768: 2^31 + 32768 elements) is where offsets computed in 32 bits overflow; it runs on GPUs with 139 GiB
or more (`min_gpu_gib`).
`check_last_3d` reduces the last dim of a 3-D input: a wrapper that launches shape[0] rows of stride(0), as
Triton's softmax tutorial does for 2-D input, covers only every shape[1]-th row there (every other workload along
the last dim is 2-D). `check_4d_dim1` reduces dim 1 of a 4-D input, the one workload with more than one dim after
the reduced one: a strided kernel that steps along `dim` by shape[dim + 1] (or shape[-1]), right for every other
workload, mixes slices there.

Tolerance: float32 atol 1e-5, rtol 1e-4 (the default rtol is 1e-5). On an H100 (2026-11-22) the solution, which
exponentiates with Triton's fast `exp`, disagreed with torch's softmax by up to 2.32e-5 relative (about 190 ulps)
in 1 of 537M elements of `bench_middle` (4096-long slices along dim 1): more than the default allows, although
both are faithful fp32 softmaxes. The wrong candidates miss by orders of magnitude more. bfloat16 keeps the
default.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "softmax",
    "category": "Normalization",
    "level": 1,
    "signature": "(input, dim)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["softmax", "log_softmax", "softmin", "exp", "exp2", "logsumexp", "sum"],
    "contract": {"kind": "allclose", "tolerance": {"float32": [1e-5, 1e-4]}},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 100], "dim": -1, "offset": 1000.0}},
        {"name": "smoke_dim0", "role": "smoke", "params": {"shape": [100, 8], "dim": 0, "offset": 0.0}},
        {"name": "check_long_rows", "role": "check",
         "params": {"shape": [33, 4097], "dim": -1, "offset": 1000.0}},
        {"name": "check_very_long_rows", "role": "check",
         "params": {"shape": [4, 40000], "dim": 1, "offset": 1000.0}},
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
        {"name": "bench_long_rows", "role": "bench",
         "params": {"shape": [4096, 131072], "dim": -1, "offset": 0.0}},
        {"name": "bench_middle", "role": "bench",
         "params": {"shape": [64, 4096, 2048], "dim": 1, "offset": 0.0}},
        {"name": "bench_over_2_31", "role": "bench", "min_gpu_gib": 139, "timed": False,
         "params": {"shape": [65537, 32768], "dim": -1, "offset": 1000.0}},
    ],
}


def reference(input, dim):
    return torch.softmax(input, dim)


def truth_rows(input, dim):
    """Along any dimension but the first, each row's outputs depend on that row alone: the float64 truth may run by
    blocks of rows."""
    return ("input",) if input.dim() > 1 and dim % input.dim() != 0 else None


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dim = p["dim"] % len(shape)
    slice_shape = [1 if d == dim else s for d, s in enumerate(shape)]  # one entry per softmax slice
    length = shape[dim]

    x = inputs.randn(shape, "float32", generator, scale=3.0)
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
