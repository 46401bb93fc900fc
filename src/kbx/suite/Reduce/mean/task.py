"""Arithmetic mean over one or more dims (all dims by default).

    mean(input, dim, keepdim)[k] = (1 / n) * sum over the reduced coordinates r of input[k, r]

where n is the number of reduced elements per output (the product of the reduced sizes). Mirrors
`torch.mean(input, dim=None, keepdim=False)`: `dim` is None (reduce every dim, a 0-d output), an int (negative
counts from the end) or a list of ints (a JSON list here; a tuple works the same; an empty one reduces every dim,
as None does and as torch.mean does, `check_empty_dims`). Reduced dims are removed, or kept with size 1 when
`keepdim` is True. The output dtype is the input dtype; PyTorch accumulates fp16 in fp32
and rounds once, and a candidate must do the same to stay within tolerance.

Workloads reduce the last, first and a middle dim, two adjacent and two non-adjacent dims, every dim (dim=None,
with and without keepdim), a few long columns (where a good kernel splits the reduction), on contiguous,
transposed and strided inputs, with reduction lengths that straddle block sizes (127, 129, 4097), and slices of
9001 (`check_long_rows`), longer than any one block a kernel may cap a row at (8192). Values have a
mean of 0.5 and a few outliers of +-20, so the sums grow with the length (an fp16 accumulator loses them) and a
wrong divisor is visible. The default tolerances hold without widening: dividing by n cancels the sqrt(n)
growth of the sum's rounding error (the solution uses at most 3% of the fp32 tolerance and matches fp16 exactly).
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "mean",
    "category": "Reduce",
    "level": 1,
    "signature": "(input, dim=None, keepdim=False)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["mean", "nanmean", "sum", "nansum", "var_mean", "std_mean", "sum_to_size", "cumsum", "einsum",
                  "matmul", "mm", "mv", "bmm", "dot", "vdot", "tensordot", "inner", "@", "avg_pool1d", "avg_pool2d",
                  "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
                  "layer_norm", "group_norm", "instance_norm", "batch_norm", "trapz", "trapezoid"],
    "contract": {"kind": "allclose", "reduction_length": "shape/dim"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 200], "dim": -1}},
        {"name": "smoke_all", "role": "smoke", "params": {"shape": [33, 65], "dim": None}},
        {"name": "check_last_127", "role": "check", "params": {"shape": [65, 127], "dim": 1}},
        {"name": "check_last_4097", "role": "check", "params": {"shape": [33, 4097], "dim": -1, "keepdim": True}},
        {"name": "check_first_129", "role": "check", "params": {"shape": [129, 127], "dim": 0}},
        {"name": "check_long_columns", "role": "check", "params": {"shape": [4097, 3], "dim": 0}},
        {"name": "check_middle", "role": "check", "params": {"shape": [5, 129, 33], "dim": -2, "keepdim": True}},
        {"name": "check_dims_adjacent", "role": "check", "params": {"shape": [7, 33, 65], "dim": [1, 2]}},
        {"name": "check_dims_split", "role": "check",
         "params": {"shape": [9, 33, 65], "dim": [-1, 0], "keepdim": True}},
        {"name": "check_all", "role": "check", "params": {"shape": [3, 17, 129], "dim": None}},
        {"name": "check_all_keepdim", "role": "check", "params": {"shape": [4097], "dim": None, "keepdim": True}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "dim": -1, "layout": "transposed"}},
        {"name": "check_strided", "role": "check",
         "params": {"shape": [3, 65, 129], "dim": [0, 2], "layout": "strided"}},
        {"name": "check_long_rows", "role": "check", "params": {"shape": [3, 9001], "dim": -1}},
        {"name": "check_empty_dims", "role": "check", "params": {"shape": [3, 5, 67], "dim": []}},
        {"name": "bench_last", "role": "bench", "params": {"shape": [65536, 16384], "dim": -1}},
        {"name": "bench_middle", "role": "bench", "params": {"shape": [256, 4096, 1024], "dim": 1, "keepdim": True}},
        {"name": "bench_all", "role": "bench", "params": {"shape": [32768, 32768], "dim": None}},
    ],
}


def reference(input, dim=None, keepdim=False):
    return torch.mean(input, dim=dim, keepdim=keepdim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=1.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=20.0)
    x = inputs.layout(x, p.get("layout", "contiguous"))
    dim = tuple(p["dim"]) if isinstance(p["dim"], list) else p["dim"]
    return {"input": x, "dim": dim, "keepdim": p.get("keepdim", False)}
