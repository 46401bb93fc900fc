"""Trace of every matrix in a batch: the sum of the main diagonal of the last two dims.

    out[...] = sum_{i < min(M, N)} input[..., i, i]          (input is (..., M, N), out is (...))

The batched form of `torch.trace` (which takes one 2-D matrix), defined as
`input.diagonal(dim1=-2, dim2=-1).sum(-1)`: rectangular matrices sum their min(M, N) diagonal elements, and a
2-D input gives a 0-d output. The output has the input's dtype; fp16 diagonals are summed in fp32 and rounded
once (the reference does the same).

Values are normal with an offset of 0.5 and a few outliers of +-40, so a kernel that sums a neighbouring diagonal,
a whole row or the full matrix is far off. Workloads: square, tall and wide matrices (diagonal lengths 17 to
1023), batches of many small matrices, a single 2-D matrix, several batch dims, transposed and strided inputs.
Tolerance: the defaults with atol widened by sqrt(min(M, N)) (`reduction_length`); the solution sums in a
different order than PyTorch and uses under 5% of it.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "batch_trace",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["trace", "diagonal", "diag", "diagflat", "diag_embed", "sum", "nansum", "mean", "nanmean",
                  "cumsum", "einsum", "matmul", "mm", "bmm", "dot", "vdot", "inner", "tensordot", "@"],
    "contract": {"kind": "allclose", "reduction_length": "length"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 33, 33], "length": 33}},
        {"name": "check_tall", "role": "check", "params": {"shape": [65, 129, 17], "length": 17}},
        {"name": "check_wide", "role": "check", "params": {"shape": [3, 17, 4097], "length": 17}},
        {"name": "check_single", "role": "check", "params": {"shape": [1025, 1023], "length": 1023}},
        {"name": "check_batch_dims_t", "role": "check",
         "params": {"shape": [4, 5, 65, 65], "length": 65, "layout": "transposed"}},
        {"name": "check_strided", "role": "check", "params": {"shape": [129, 33, 31], "length": 31,
                                                              "layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [6291456, 16, 16], "length": 16}},
        {"name": "bench_over_2_31", "role": "bench", "min_gpu_gib": 139, "timed": False,
         "params": {"shape": [8388609, 16, 16], "length": 16}},
    ],
}


def reference(input):
    return input.diagonal(dim1=-2, dim2=-1).sum(-1, dtype=torch.float32).to(input.dtype)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=40.0)
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); the diagonal length follows, the layout stays.
    shape = sizes.shape_near(rng, workload.params["shape"])
    return {**workload.params, "shape": shape, "length": min(shape[-2], shape[-1])}
