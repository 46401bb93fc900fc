"""Cumulative (inclusive prefix) sum along one dimension.

    cumsum(input, dim)[..., i, ...] = sum over j <= i of input[..., j, ...]      (i, j index dimension `dim`)

Mirrors `torch.cumsum(input, dim)` with an int `dim` (negative values count from the end). The output has the
input's shape and dtype. PyTorch accumulates bf16 in fp32 and rounds every output once; a kernel that carries
the running sum in bf16 loses everything added once the sum is large (bf16 keeps 8 significant bits).

Workloads scan the last dim, the first dim and a middle dim, rows longer than any one block (4097 and 16411
elements, so a blocked scan must carry its total from block to block), short rows, a 1-D input, negative `dim`,
and transposed and strided inputs. Values have a positive mean (sums grow along the scan) and a few outliers.

Tolerance: a scan is a reduction of up to `length` elements (the workload's scan length), and a blocked parallel
scan adds in a different order than PyTorch's, so the contract widens atol with sqrt(length) (reduction_length);
rtol stays at the default, which covers the fp32 rounding of the growing sums. The solution's worst error uses
under 10% of the widened fp32 tolerance and is exact in bf16 here; the wrong candidates miss by orders of magnitude.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "cumsum",
    "category": "Math",
    "level": 1,
    "signature": "(input, dim)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["cumsum", "cumulative_sum", "cumulative_trapezoid", "logcumsumexp", "cumprod", "sum", "nansum",
                  "matmul", "mm", "bmm", "mv", "einsum", "tensordot", "tril", "triu", "conv1d", "@"],
    "contract": {"kind": "allclose", "reduction_length": "length"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 200], "dim": -1, "length": 200}},
        {"name": "smoke_dim0", "role": "smoke", "params": {"shape": [200, 16], "dim": 0, "length": 200}},
        {"name": "check_last_127", "role": "check", "params": {"shape": [65, 127], "dim": 1, "length": 127}},
        {"name": "check_last_4097", "role": "check", "params": {"shape": [9, 4097], "dim": -1, "length": 4097}},
        {"name": "check_long_row", "role": "check", "params": {"shape": [2, 16411], "dim": -1, "length": 16411}},
        {"name": "check_1d", "role": "check", "params": {"shape": [4097], "dim": 0, "length": 4097}},
        {"name": "check_first_129", "role": "check", "params": {"shape": [129, 127], "dim": 0, "length": 129}},
        {"name": "check_first_long", "role": "check", "params": {"shape": [4097, 9], "dim": -2, "length": 4097}},
        {"name": "check_middle", "role": "check", "params": {"shape": [5, 129, 33], "dim": 1, "length": 129}},
        {"name": "check_short_rows", "role": "check", "params": {"shape": [3, 129, 5], "dim": -1, "length": 5}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "dim": -1, "layout": "transposed", "length": 127}},
        {"name": "check_strided_middle", "role": "check",
         "params": {"shape": [3, 257, 33], "dim": 1, "layout": "strided", "length": 257}},
        {"name": "bench_last", "role": "bench", "params": {"shape": [16384, 32768], "dim": -1, "length": 32768}},
        {"name": "bench_first", "role": "bench", "params": {"shape": [32768, 16384], "dim": 0, "length": 32768}},
    ],
}


def reference(input, dim):
    return torch.cumsum(input, dim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    assert p["length"] == shape[p["dim"]], "length must be the scanned dim's size"
    x = inputs.randn(shape, dtype, generator, scale=1.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=20.0)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "dim": p["dim"]}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); dim and layout stay, length follows.
    p = workload.params
    shape = sizes.shape_near(rng, p["shape"])
    return {**p, "shape": shape, "length": shape[p["dim"]]}
