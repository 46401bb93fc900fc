"""Argmax along one dimension: the index of the largest element of every slice.

    argmax(x, dim)[i..., k...] = the smallest j such that x[i..., j, k...] = max_j' x[i..., j', k...]

Mirrors `torch.argmax(input, dim, keepdim=False)` with an int `dim` (negative values count from the end).
The output is int64 and has the input's shape with `dim` removed, or kept with size 1 when `keepdim=True`.
When the maximum occurs more than once in a slice the FIRST (smallest) index wins, as PyTorch documents.

Inputs are small integers (exact in every dtype) plus a per-slice integer offset, so nearly every slice holds its
maximum several times (a kernel that returns the last tied index, or that merges partial results in the wrong order,
fails) and many slices are entirely negative (a running maximum started at 0 fails). Workloads reduce the last,
first and middle dimensions, negative `dim`, `keepdim=True`, a 1-D input (0-d output), slices longer than one block,
and transposed or strided (non-contiguous) inputs. In the `late_peak` workloads every slice instead has one unique
maximum placed in its last eighth (past the first 4096 elements at the published sizes): a kernel that stops after
its first block (or merges blocks wrongly) misses it, which the tied small integers alone rarely show, since a
slice's maximum then almost always occurs in its first block. In the `close_values` workloads the values instead lie
in [1000, 1004) (or [-1004, -1000) per slice), apart by less than an ulp of a narrower dtype: a kernel that compares
values rounded to fp16 or bf16 (a load cast too far, a half-precision running maximum) ties them and returns the
wrong index (the small integers, exact in every dtype, let such a kernel pass). Inputs are finite: NaN handling is
not exercised.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "argmax",
    "category": "Reduce",
    "level": 1,
    "signature": "(input, dim, keepdim=False)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["argmax", "argmin", "max", "min", "topk", "sort", "argsort", "kthvalue"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
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
        {"name": "check_close_values", "role": "check", "params": {"shape": [65, 1031], "dim": -1, "close": True}},
        {"name": "check_close_values_dim0", "role": "check",
         "params": {"shape": [1031, 65], "dim": 0, "close": True}},
        {"name": "check_late_peak_rows", "role": "check",
         "params": {"shape": [9, 9001], "dim": -1, "peak": "late"}},
        {"name": "check_late_peak_cols", "role": "check",
         "params": {"shape": [5003, 7], "dim": 0, "peak": "late"}},
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
    if p.get("close"):
        x = inputs.close_values(shape, offset_shape, generator)
    if p.get("peak") == "late":
        x = _late_peak(x, dim, generator)
    x = x.to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "dim": p["dim"],
            "keepdim": p.get("keepdim", False)}


def _late_peak(x, dim, generator):
    """Each slice along `dim` gets one unique maximum (its maximum + 1, an exact integer) at a random position in
    its last eighth."""
    length = x.shape[dim]
    moved = x.movedim(dim, -1).contiguous()
    slices = moved.reshape(-1, length)
    late = length - 1 - torch.floor(inputs.uniform([slices.shape[0]], 0.0, length / 8, "float32", generator))
    index = late.to(torch.int64).clamp(0, length - 1)[:, None]
    slices.scatter_(1, index, slices.max(dim=1, keepdim=True).values + 1)
    return slices.reshape(moved.shape).movedim(-1, dim)
