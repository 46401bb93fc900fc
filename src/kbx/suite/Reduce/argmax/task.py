"""Argmax along one dimension: the index of the largest element of every slice.

    argmax(x, dim)[i..., k...] = the smallest j such that x[i..., j, k...] = max_j' x[i..., j', k...]

Mirrors `torch.argmax(input, dim, keepdim=False)` with an int `dim` (negative values count from the end).
The output is int64 and has the input's shape with `dim` removed, or kept with size 1 when `keepdim=True`.
When the maximum occurs more than once in a slice the FIRST (smallest) index wins, as PyTorch documents.

Inputs are small integers (exact in every dtype) plus a per-slice integer offset, so nearly every slice holds
its maximum several times (a kernel that returns the last tied index, or that merges partial results in the
wrong order, fails) and many slices are entirely negative (a running maximum started at 0 fails). Workloads
reduce the last, first and middle dimensions, negative `dim`, `keepdim=True`, a 1-D input (0-d output), slices
longer than one block, and transposed or strided (non-contiguous) inputs. Inputs are finite: NaN handling is
not exercised.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "argmax",
    "category": "Reduce",
    "level": 1,
    "signature": "(input, dim, keepdim=False)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["argmax", "argmin", "max", "min", "topk", "sort", "argsort", "kthvalue"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 100], "dim": -1}},
        {"name": "smoke_dim0_keepdim", "role": "smoke",
         "params": {"shape": [100, 16], "dim": 0, "keepdim": True}},
        {"name": "check_long_rows", "role": "check", "params": {"shape": [33, 4097], "dim": 1}},
        {"name": "check_1d", "role": "check", "params": {"shape": [4097], "dim": 0}},
        {"name": "check_dim0", "role": "check", "params": {"shape": [257, 129], "dim": 0}},
        {"name": "check_middle_keepdim", "role": "check",
         "params": {"shape": [5, 130, 17], "dim": 1, "keepdim": True}},
        {"name": "check_first_3d", "role": "check", "params": {"shape": [37, 4, 33], "dim": 0}},
        {"name": "check_neg_strided", "role": "check",
         "params": {"shape": [7, 65, 33], "dim": -2, "layout": "strided"}},
        {"name": "check_last_transposed", "role": "check",
         "params": {"shape": [127, 129], "dim": -1, "layout": "transposed"}},
        {"name": "check_short_rows", "role": "check", "params": {"shape": [3, 129, 5], "dim": -1}},
        {"name": "bench_rows", "role": "bench", "params": {"shape": [32768, 32768], "dim": -1}},
        {"name": "bench_cols", "role": "bench", "params": {"shape": [32768, 32768], "dim": 0}},
        {"name": "bench_middle", "role": "bench", "params": {"shape": [256, 1024, 4096], "dim": 1}},
    ],
}


def reference(input, dim, keepdim=False):
    return torch.argmax(input, dim=dim, keepdim=keepdim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dim = p["dim"] % len(shape)
    # Integers in [-4, 4): with 8 distinct values every slice longer than a handful of elements holds its
    # maximum several times.
    x = torch.floor(inputs.uniform(shape, -4.0, 4.0, "float32", generator))
    # A per-slice integer offset in [-12, 8): about 40% of the slices are entirely negative.
    offset_shape = [1 if d == dim else s for d, s in enumerate(shape)]
    x += torch.floor(inputs.uniform(offset_shape, -12.0, 8.0, "float32", generator))
    x = x.to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "dim": p["dim"],
            "keepdim": p.get("keepdim", False)}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); dim, keepdim and layout stay.
    return {**workload.params, "shape": sizes.shape_near(rng, workload.params["shape"])}
