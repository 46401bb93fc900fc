"""Count of the non-zero elements over one or more dims (all dims by default).

    count_nonzero(input, dim)[k] = number of reduced coordinates r with input[k, r] != 0

Mirrors `torch.count_nonzero(input, dim=None)`: `dim` is None (every dim, a 0-d output), an int (negative counts
from the end) or a list of ints (a JSON list here; a tuple works the same; an empty one reduces every dim, as None
does, `check_empty_dims`); the reduced dims are removed (there is no keepdim). The output is int64 and compared
exactly. -0.0 is zero (it compares equal to 0); for bool inputs True counts.

Values are ReLU-like: about half of the elements are exactly 0, a fifth of those written as -0.0 (a test on the
bit pattern instead of the value counts them), the rest positive or negative. Workloads reduce every dim (1-D,
2-D, 3-D and transposed inputs), the last, first and a middle dim, adjacent and non-adjacent dims, a few long
columns, strided inputs, with lengths that straddle block sizes (127, 129, 4097), and slices of 9001
(`check_long_rows`), longer than any one block a kernel may cap a row at (8192); inputs are fp32, fp16 or bool.
`check_nan_inf` also holds NaN (about 2 %) and +-inf (about 1 %): NaN != 0, so NaN counts, and a kernel that
tests `x > 0 or x < 0` misses it.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "count_nonzero",
    "category": "Reduce",
    "level": 1,
    "signature": "(input, dim=None)",
    "dtypes": ["float32", "float16", "bool"],
    "forbidden": ["count_nonzero", "nonzero", "nonzero_static", "argwhere", "sum", "nansum", "mean", "nanmean",
                  "cumsum", "bincount", "histc", "histogram", "masked_select", "any", "all", "ne", "not_equal", "eq",
                  "equal", "logical_not", "bool", "sign", "signbit", "norm", "vector_norm", "matmul", "mm", "mv",
                  "dot", "einsum", "@"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 200], "dim": -1}},
        {"name": "smoke_all", "role": "smoke", "params": {"shape": [33, 65], "dim": None}},
        {"name": "check_all_1d", "role": "check", "params": {"shape": [8193], "dim": None}},
        {"name": "check_all_3d", "role": "check", "params": {"shape": [3, 17, 129], "dim": None}},
        {"name": "check_all_transposed", "role": "check",
         "params": {"shape": [129, 127], "dim": None, "layout": "transposed"}},
        {"name": "check_last_4097", "role": "check", "params": {"shape": [9, 4097], "dim": 1}},
        {"name": "check_first_129", "role": "check", "params": {"shape": [129, 127], "dim": 0}},
        {"name": "check_long_columns", "role": "check", "params": {"shape": [4097, 3], "dim": -2}},
        {"name": "check_middle", "role": "check", "params": {"shape": [5, 129, 33], "dim": 1}},
        {"name": "check_dims_adjacent", "role": "check", "params": {"shape": [7, 33, 65], "dim": [1, 2]}},
        {"name": "check_dims_split", "role": "check", "params": {"shape": [9, 33, 65], "dim": [-1, 0]}},
        {"name": "check_strided", "role": "check", "params": {"shape": [3, 65, 129], "dim": 2, "layout": "strided"}},
        {"name": "check_long_rows", "role": "check", "params": {"shape": [3, 9001], "dim": -1}},
        {"name": "check_nan_inf", "role": "check", "params": {"shape": [65, 129], "dim": -1, "specials": True}},
        {"name": "check_empty_dims", "role": "check", "params": {"shape": [3, 17, 129], "dim": []}},
        {"name": "bench_all", "role": "bench", "params": {"shape": [32768, 32768], "dim": None}},
        {"name": "bench_last", "role": "bench", "params": {"shape": [65536, 16384], "dim": -1}},
    ],
}


def reference(input, dim=None):
    return torch.count_nonzero(input, dim=dim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, "float32", generator)
    u = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = torch.where(u < 0.5, 0.0, x)  # exact zeros
    x = torch.where(u < 0.1, -0.0, x)  # a fifth of them negative zeros
    if p.get("specials"):  # NaN counts (NaN != 0), and so does an infinity
        x = torch.where(u > 0.98, float("nan"), torch.where(u > 0.97, float("inf") * torch.sign(x - 0.5), x))
    x = x.to(inputs.torch_dtype(dtype)) if dtype != "bool" else x != 0
    dim = tuple(p["dim"]) if isinstance(p["dim"], list) else p["dim"]
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "dim": dim}
