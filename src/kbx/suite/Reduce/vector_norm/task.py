"""Vector norm over one or more dims (all dims by default), for ord 2, 1 and inf.

    vector_norm(x, ord=2)[k]   = sqrt(sum over the reduced coordinates r of x[k, r]^2)
    vector_norm(x, ord=1)[k]   = sum_r |x[k, r]|
    vector_norm(x, ord=inf)[k] = max_r |x[k, r]|

Mirrors `torch.linalg.vector_norm(x, ord=2, dim=None, keepdim=False)` (its `dtype` keyword is left out): `dim` is
None (every dim, a 0-d output), an int (negative counts from the end) or a list of ints (a JSON list here; a
tuple works the same; an empty one reduces every dim, as None does and as torch does, `check_empty_dims`).
Reduced dims are removed, or kept with size 1 when `keepdim` is True. `ord` is 2, 1 or float('inf') (written
"inf" in the workload params, since JSON has no infinity). The output dtype is the input dtype; fp16 is
accumulated in fp32 and rounded once.

Values are normal with a mean of -0.5, so signed sums differ from sums of magnitudes, and a few outliers of +-20;
the largest magnitude of a slice is often negative (a max without |.| fails). Workloads reduce the last, first
and a middle dim, adjacent and non-adjacent dims, every dim, a few long columns, keepdim, transposed and strided
inputs, with lengths that straddle block sizes (127, 129, 4097), and slices of 9001 whose largest magnitude is
unique and lies past element 8192 (`check_late_peak_inf`: a kernel that reads only a prefix of each slice misses
it). `check_large_values` scales its inputs by 1000: fp16 magnitudes in the thousands, whose squares are
past fp16's largest value (65504) while the norms are not, so a kernel that squares before widening overflows.
The default tolerances hold: the solution uses at
most 25% of the fp32 tolerance (the ord-1 sum of 4097 magnitudes, about 3700, is the tightest) and matches fp16.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "vector_norm",
    "category": "Reduce",
    "level": 1,
    "signature": "(x, ord=2, dim=None, keepdim=False)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["vector_norm", "norm", "matrix_norm", "nuclear_norm", "frobenius_norm", "renorm", "normalize",
                  "dist", "cdist", "pdist", "pairwise_distance", "sum", "nansum", "mean", "nanmean", "amax", "max",
                  "abs", "absolute", "square", "pow", "sqrt", "rsqrt", "hypot", "dot", "vdot", "inner", "matmul",
                  "mm", "mv", "bmm", "einsum", "tensordot", "@", "cumsum", "var", "std"],
    "contract": {"kind": "allclose", "reduction_length": "shape/dim"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 200], "ord": 2, "dim": -1}},
        {"name": "smoke_all_inf", "role": "smoke", "params": {"shape": [33, 65], "ord": "inf", "dim": None}},
        {"name": "check_last_4097_l1", "role": "check",
         "params": {"shape": [17, 4097], "ord": 1, "dim": -1, "keepdim": True}},
        {"name": "check_last_127", "role": "check", "params": {"shape": [65, 127], "ord": 2, "dim": 1}},
        {"name": "check_first_129_inf", "role": "check", "params": {"shape": [129, 127], "ord": "inf", "dim": 0}},
        {"name": "check_long_columns", "role": "check", "params": {"shape": [4097, 3], "ord": 2, "dim": 0}},
        {"name": "check_middle_l1", "role": "check",
         "params": {"shape": [5, 129, 33], "ord": 1, "dim": -2, "keepdim": True}},
        {"name": "check_dims_adjacent", "role": "check", "params": {"shape": [7, 33, 65], "ord": 2, "dim": [1, 2]}},
        {"name": "check_dims_split_inf", "role": "check",
         "params": {"shape": [9, 33, 65], "ord": "inf", "dim": [-1, 0], "keepdim": True}},
        {"name": "check_all", "role": "check", "params": {"shape": [3, 17, 129], "ord": 2, "dim": None}},
        {"name": "check_all_keepdim", "role": "check",
         "params": {"shape": [5, 7, 33], "ord": 1, "dim": None, "keepdim": True}},
        {"name": "check_all_l1", "role": "check", "params": {"shape": [4097], "ord": 1, "dim": None}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "ord": 2, "dim": -1, "layout": "transposed"}},
        {"name": "check_strided_inf", "role": "check",
         "params": {"shape": [3, 65, 129], "ord": "inf", "dim": [0, 2], "layout": "strided"}},
        {"name": "check_late_peak_inf", "role": "check",
         "params": {"shape": [5, 9001], "ord": "inf", "dim": -1, "peak": "late"}},
        {"name": "check_empty_dims", "role": "check", "params": {"shape": [3, 5, 67], "ord": 1, "dim": []}},
        {"name": "check_large_values", "role": "check",
         "params": {"shape": [33, 129], "ord": 2, "dim": -1, "scale": 1000.0}},
        {"name": "bench_last", "role": "bench", "params": {"shape": [65536, 16384], "ord": 2, "dim": -1}},
        {"name": "bench_all", "role": "bench", "params": {"shape": [32768, 32768], "ord": 2, "dim": None}},
        {"name": "bench_first_l1", "role": "bench", "params": {"shape": [16384, 65536], "ord": 1, "dim": 0}},
    ],
}


def reference(x, ord=2, dim=None, keepdim=False):
    return torch.linalg.vector_norm(x, ord=ord, dim=dim, keepdim=keepdim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=1.0, offset=-0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=20.0)
    if "scale" in p:
        # `check_large_values`: magnitudes in the thousands, whose squares are past fp16's range (65504) while
        # the norms are not: an fp16 square (a load left unwidened before `x * x`) overflows to inf.
        x = (x.float() * p["scale"]).to(x.dtype)
    if p.get("peak") == "late":
        dims = [] if p["dim"] is None else [p["dim"]] if isinstance(p["dim"], int) else p["dim"]
        x = inputs.late_extremum(x, dims, generator, magnitude=True).to(x.dtype)
    x = inputs.layout(x, p.get("layout", "contiguous"))
    dim = tuple(p["dim"]) if isinstance(p["dim"], list) else p["dim"]
    ord = float("inf") if p["ord"] == "inf" else p["ord"]
    return {"x": x, "ord": ord, "dim": dim, "keepdim": p.get("keepdim", False)}
