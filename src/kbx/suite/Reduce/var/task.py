"""Variance over one or more dims (all dims by default), with Bessel's correction by default.

    var(input, dim, correction, keepdim)[k] = sum over r of (input[k, r] - mean_k)^2 / max(0, n - correction)

where r runs over the n reduced coordinates and mean_k is their mean. Mirrors
`torch.var(input, dim=None, *, correction=1, keepdim=False)`, with `correction` as a plain parameter: `dim` is None
(every dim, a 0-d output), an int (negative counts from the end) or a list of ints (a JSON list here; a tuple works
the same; an empty one reduces every dim, as None does and as torch.var does, `check_empty_dims`). correction=1 is
the unbiased sample variance, 0 the population variance. Reduced dims are removed, or kept with size 1 when
`keepdim` is True. The output dtype is the input dtype; bf16 is computed in fp32.

Every slice has its own offset, uniform in [-1000, 1000], on top of a spread of 1 to 3 and a few outliers: the
textbook one-pass formula (E[x^2] - E[x]^2) cancels catastrophically in fp32 (1e6 - 1e6 for a variance of about
4), so a stable algorithm (two passes, Welford/Chan updates, or shifted sums) is needed. Workloads reduce the last,
first and a middle dim, adjacent and non-adjacent dims, every dim, a few long columns, with correction 1, 0 and 2,
keepdim, transposed and strided inputs, lengths that straddle block sizes (127, 129, 4097), slices of 9001
(`check_long_rows`), longer than any one block a kernel may cap a row at (8192), and a correction larger than n
(`check_correction_past_n`: pairs with correction=3, where the divisor max(0, n - correction) is 0, so every output
is inf, or NaN where a pair's two values are equal, as bf16's rounding of the offset makes many of them).

The `length` parameter is n; atol grows with sqrt(n) (variances here are 1 to 9). PyTorch's fp32 GPU kernel runs
Welford updates on unshifted data, whose error grows with n and the offset: this solution without its shift loses up
to 1e-5 relative on these inputs (the size of the fp32 rtol), so the reference needs that room. The solution, which
shifts each slice, is within 5e-7 relative of a float64 variance and uses under 2% of the widened tolerance. The
wrong candidates miss by far more: the one-pass formula by about 0.1 absolute or more, ignoring the correction by
var / n (1% at n = 127), dividing by n - correction without the clamp by returning a finite negative variance where
the reference is inf.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "var",
    "category": "Reduce",
    "level": 1,
    "signature": "(input, dim=None, correction=1, keepdim=False)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["var", "var_mean", "std", "std_mean", "nanvar", "nanstd", "mean", "nanmean", "sum", "nansum",
                  "cov", "corrcoef", "batch_norm", "layer_norm", "group_norm", "instance_norm", "norm",
                  "vector_norm", "matmul", "mm", "mv", "bmm", "dot", "vdot", "inner", "einsum", "tensordot", "@",
                  "cumsum", "square", "pow"],
    "contract": {"kind": "allclose", "reduction_length": "length"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 200], "dim": -1, "correction": 1, "length": 200}},
        {"name": "smoke_all", "role": "smoke",
         "params": {"shape": [33, 65], "dim": None, "correction": 0, "length": 2145}},
        {"name": "check_empty_dims", "role": "check",
         "params": {"shape": [3, 5, 67], "dim": [], "correction": 0, "length": 1005}},
        {"name": "check_last_127", "role": "check",
         "params": {"shape": [65, 127], "dim": 1, "correction": 1, "length": 127}},
        {"name": "check_last_4097", "role": "check",
         "params": {"shape": [17, 4097], "dim": -1, "correction": 0, "keepdim": True, "length": 4097}},
        {"name": "check_first_129", "role": "check",
         "params": {"shape": [129, 127], "dim": 0, "correction": 1, "length": 129}},
        {"name": "check_long_columns", "role": "check",
         "params": {"shape": [4097, 3], "dim": 0, "correction": 2, "length": 4097}},
        {"name": "check_middle", "role": "check",
         "params": {"shape": [5, 129, 33], "dim": -2, "correction": 1, "keepdim": True, "length": 129}},
        {"name": "check_dims_adjacent", "role": "check", "params": {"shape": [7, 33, 65], "dim": [1, 2],
                                                                     "correction": 1, "length": 2145}},
        {"name": "check_dims_split", "role": "check",
         "params": {"shape": [9, 33, 65], "dim": [-1, 0], "correction": 0, "keepdim": True, "length": 585}},
        {"name": "check_all", "role": "check",
         "params": {"shape": [3, 17, 129], "dim": None, "correction": 1, "length": 6579}},
        {"name": "check_all_keepdim", "role": "check",
         "params": {"shape": [5, 7, 33], "dim": None, "correction": 1, "keepdim": True, "length": 1155}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "dim": -1, "correction": 1, "layout": "transposed", "length": 127}},
        {"name": "check_strided", "role": "check",
         "params": {"shape": [3, 65, 129], "dim": [0, 2], "correction": 1, "layout": "strided", "length": 387}},
        {"name": "check_long_rows", "role": "check",
         "params": {"shape": [3, 9001], "dim": -1, "correction": 1, "length": 9001}},
        {"name": "check_correction_past_n", "role": "check",
         "params": {"shape": [65, 2], "dim": -1, "correction": 3, "length": 2}},
        {"name": "bench_last", "role": "bench",
         "params": {"shape": [65536, 16384], "dim": -1, "correction": 1, "length": 16384}},
        {"name": "bench_first", "role": "bench",
         "params": {"shape": [16384, 65536], "dim": 0, "correction": 1, "length": 16384}},
        {"name": "bench_all", "role": "bench",
         "params": {"shape": [32768, 32768], "dim": None, "correction": 0, "length": 1073741824}},
    ],
}


def reference(input, dim=None, correction=1, keepdim=False):
    return torch.var(input, dim=dim, correction=correction, keepdim=keepdim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    if p["dim"] is None or p["dim"] == []:  # an empty list reduces every dim, as None does
        reduced = set(range(len(shape)))
    else:
        reduced = {d % len(shape) for d in ([p["dim"]] if isinstance(p["dim"], int) else p["dim"])}
    slice_shape = [1 if d in reduced else s for d, s in enumerate(shape)]
    # A spread of 1 to 3 and an offset of up to +-1000 per output slice.
    scale = inputs.uniform(slice_shape, 1.0, 3.0, "float32", generator)
    offset = inputs.uniform(slice_shape, -1000.0, 1000.0, "float32", generator)
    x = inputs.randn(shape, "float32", generator) * scale
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=15.0) + offset
    x = inputs.layout(x.to(inputs.torch_dtype(dtype)), p.get("layout", "contiguous"))
    dim = tuple(p["dim"]) if isinstance(p["dim"], list) else p["dim"]
    return {"input": x, "dim": dim, "correction": p["correction"], "keepdim": p.get("keepdim", False)}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); dim, correction, keepdim and layout stay, length
    # follows. Where the correction is past n, the reduced sizes stay too, so that it stays past n.
    p = workload.params
    if p["dim"] is None or p["dim"] == []:
        dims = list(range(len(p["shape"])))
    else:
        dims = [p["dim"]] if isinstance(p["dim"], int) else p["dim"]
    keep = dims if p["correction"] > p["length"] else ()
    shape = sizes.shape_near(rng, p["shape"], keep=keep)
    return {**p, "shape": shape, "length": math.prod(shape[d] for d in dims)}
