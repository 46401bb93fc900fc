"""Argmin: the index of the smallest element of every slice along one dim, or of the whole flattened input.

    argmin(x, dim)[i..., k...] = the smallest j such that x[i..., j, k...] = min_j' x[i..., j', k...]
    argmin(x, None)            = the smallest flat index j (row-major) such that x.flatten()[j] = min(x)

Mirrors `torch.argmin(input, dim=None, keepdim=False)` with `dim` None or an int (negative counts from the end).
The output is int64. With an int `dim` it has the input's shape with `dim` removed, or kept with size 1 when
`keepdim` is True; with `dim=None` it is 0-d, or all ones in shape when `keepdim` is True. When the minimum
occurs more than once, the FIRST (smallest) index wins, as PyTorch documents: the contract is exact.

Inputs are small integers (exact in every dtype) plus a per-slice integer offset, so nearly every slice holds its
minimum several times (a kernel that keeps the last tied index, or merges partial results in the wrong order, fails)
and many slices are entirely positive (a running minimum started at 0 fails). Workloads reduce the last, first and a
middle dim, negative dims, keepdim, dim=None (a full reduction over 1-D, 2-D and transposed inputs, where a good
kernel splits the work over many programs), slices longer than one block, and transposed or strided inputs. In
`check_late_trough` each slice instead has one unique minimum (its minimum - 1) past the largest power of two below
its length (9001: past element 8192): with tied small integers a slice's minimum almost always occurs in its first
block, so only there does a kernel that reads a prefix of each slice fail. In `check_close_values` the values
instead lie in [1000, 1004) (or [-1004, -1000) per slice), apart by less than an ulp of a narrower dtype: a kernel
that compares values rounded to fp16 or bf16 (a load cast too far, a half-precision running minimum) ties them and
returns the wrong index (the small integers, exact in every dtype, let such a kernel pass). Inputs are finite: NaN
handling is not exercised.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "argmin",
    "category": "Reduce",
    "level": 1,
    "signature": "(input, dim=None, keepdim=False)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["argmin", "argmax", "min", "max", "aminmax", "amin", "amax", "minimum", "topk", "sort", "argsort",
                  "msort", "kthvalue", "cummin", "median", "nanmedian", "mode", "max_pool1d", "max_pool2d",
                  "max_pool3d"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 100], "dim": -1}},
        {"name": "smoke_all", "role": "smoke", "params": {"shape": [40, 50], "dim": None}},
        {"name": "check_long_rows", "role": "check", "params": {"shape": [17, 4097], "dim": 1}},
        {"name": "check_dim0", "role": "check", "params": {"shape": [257, 65], "dim": 0}},
        {"name": "check_middle_keepdim", "role": "check",
         "params": {"shape": [5, 130, 17], "dim": -2, "keepdim": True}},
        {"name": "check_short_rows", "role": "check", "params": {"shape": [3, 129, 5], "dim": 2}},
        {"name": "check_long_columns", "role": "check", "params": {"shape": [4097, 3], "dim": 0}},
        {"name": "check_1d_all", "role": "check", "params": {"shape": [8193], "dim": None}},
        {"name": "check_all_keepdim", "role": "check", "params": {"shape": [65, 127], "dim": None, "keepdim": True}},
        {"name": "check_all_transposed", "role": "check",
         "params": {"shape": [129, 65], "dim": None, "layout": "transposed"}},
        {"name": "check_last_transposed", "role": "check",
         "params": {"shape": [127, 129], "dim": -1, "layout": "transposed"}},
        {"name": "check_neg_strided", "role": "check",
         "params": {"shape": [7, 65, 33], "dim": -2, "layout": "strided"}},
        {"name": "check_close_values", "role": "check", "params": {"shape": [1031, 65], "dim": 0, "close": True}},
        {"name": "check_late_trough", "role": "check", "params": {"shape": [9, 9001], "dim": -1, "trough": "late"}},
        {"name": "bench_rows", "role": "bench", "params": {"shape": [32768, 32768], "dim": -1}},
        {"name": "bench_middle", "role": "bench", "params": {"shape": [256, 1024, 4096], "dim": 1}},
        {"name": "bench_all", "role": "bench", "params": {"shape": [32768, 32768], "dim": None}},
    ],
}


def reference(input, dim=None, keepdim=False):
    return torch.argmin(input, dim=dim, keepdim=keepdim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    # Integers in [-4, 4): with 8 distinct values, every slice longer than a handful of elements holds its
    # minimum several times.
    x = torch.floor(inputs.uniform(shape, -4.0, 4.0, "float32", generator))
    # A per-slice integer offset in [-8, 12): about 40% of the slices are entirely positive.
    if p["dim"] is None:
        offset_shape = [1] * len(shape)
    else:
        offset_shape = [1 if d == p["dim"] % len(shape) else s for d, s in enumerate(shape)]
    x += torch.floor(inputs.uniform(offset_shape, -8.0, 12.0, "float32", generator))
    if p.get("close"):
        x = inputs.close_values(shape, offset_shape, generator)
    if p.get("trough") == "late":
        x = inputs.late_extremum(x, [] if p["dim"] is None else [p["dim"]], generator, lowest=True)
    x = x.to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "dim": p["dim"],
            "keepdim": p.get("keepdim", False)}
