"""Lower triangle of a batch of matrices: `torch.tril(input, diagonal=0)`.

    out[..., i, j] = input[..., i, j]   if j - i <= diagonal
                   = 0                  otherwise

Mirrors `torch.tril(input, diagonal=0)`: `input` has two or more dims, the last two are the matrix rows and
columns (any number of leading batch dims); `diagonal` = 0 keeps the main diagonal, a positive value keeps that
many superdiagonals too, a negative one drops that many subdiagonals as well. The output is a new tensor of the
input's shape and dtype holding copies, so the contract is exact (int32 included).

Values are normal with an offset of 1 and a few outliers (so almost no kept element is zero, and a kernel that
zeroes one diagonal too many fails). Workloads cover square and rectangular matrices that straddle block sizes
(127, 129, 4097), batches, positive and negative offsets, an offset past the last column (a copy) and one below
the first row (all zeros), column-major (transposed) and strided inputs.
"""

import torch

from kbx.tasks import inputs, work

TASK = {
    "name": "tril",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(input, diagonal=0)",
    "dtypes": ["float32", "bfloat16", "int32"],
    "forbidden": ["tril", "triu", "tril_indices", "triu_indices", "where", "masked_fill", "masked_select",
                  "masked_scatter", "mul", "multiply", "ones", "ones_like", "full", "full_like"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [33, 65], "diagonal": 0}},
        {"name": "check_rect", "role": "check", "params": {"shape": [129, 127], "diagonal": 0}},
        {"name": "check_batched_pos_t", "role": "check",
         "params": {"shape": [3, 33, 65], "diagonal": 5, "layout": "transposed"}},
        {"name": "check_neg_strided", "role": "check",
         "params": {"shape": [2, 65, 129], "diagonal": -3, "layout": "strided"}},
        {"name": "check_wide", "role": "check", "params": {"shape": [17, 4097], "diagonal": 1000}},
        {"name": "check_past_last_col", "role": "check", "params": {"shape": [2, 3, 17, 33], "diagonal": 40}},
        {"name": "check_below_first_row", "role": "check", "params": {"shape": [65, 9], "diagonal": -70}},
        {"name": "bench", "role": "bench", "params": {"shape": [12, 8192, 8192], "diagonal": 0}},
    ],
}


def reference(input, diagonal=0):
    return torch.tril(input, diagonal=diagonal)


def min_bytes(input, diagonal=0):
    """The speed of light's traffic: the entries on and below the diagonal read, the whole output written (the rest
    of the input is never needed: its entries become zeros)."""
    rows, cols = input.shape[-2:]
    matrices = input.numel() // max(rows * cols, 1)
    kept = matrices * work.band_elements(rows, cols, diagonal, lower=True)
    return (kept + input.numel()) * input.element_size()


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], "float32", generator, scale=3.0, offset=1.0)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=1000.0).to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "diagonal": p["diagonal"]}
