"""Maximum over one or more dims (all dims when `dim` is empty).

    amax(input, dim, keepdim)[k] = max over the reduced coordinates r of input[k, r]

Mirrors `torch.amax(input, dim=(), keepdim=False)`: `dim` is an int (negative counts from the end) or a list of
ints (a JSON list here; a tuple works the same); an empty list means every dim (a 0-d output). Reduced dims are
removed, or kept with size 1 when `keepdim` is True. The output dtype is the input dtype. A maximum is one of
the inputs, so the comparison is exact in every dtype.

Workloads reduce the last, first and a middle dim, two adjacent and two non-adjacent dims, every dim, a few long
columns, on contiguous, transposed and strided inputs, with reduction lengths that straddle block sizes (127,
129, 4097). Values are normal with a per-slice offset drawn from [-12, 8): about 40% of the slices are entirely
negative (a running maximum started at 0 fails), and a few outliers sit on both sides. In `check_late_peak` each
slice's maximum is unique (its maximum + 1) and sits past the largest power of two below its length (9001: past
element 8192), so a kernel that reads only a prefix of a slice (one tile capped at a block size, the first blocks)
misses it. Inputs are finite: NaN propagation is not exercised.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "amax",
    "category": "Reduce",
    "level": 1,
    "signature": "(input, dim=(), keepdim=False)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["amax", "max", "aminmax", "maximum", "fmax", "max_pool1d", "max_pool2d", "max_pool3d",
                  "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "sort", "argsort", "topk",
                  "kthvalue", "msort", "argmax", "cummax", "logcumsumexp", "quantile", "nanquantile", "median",
                  "nanmedian", "norm", "vector_norm"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 200], "dim": -1}},
        {"name": "smoke_all", "role": "smoke", "params": {"shape": [33, 65], "dim": []}},
        {"name": "check_last_127", "role": "check", "params": {"shape": [65, 127], "dim": 1}},
        {"name": "check_last_4097", "role": "check", "params": {"shape": [33, 4097], "dim": -1, "keepdim": True}},
        {"name": "check_first_129", "role": "check", "params": {"shape": [129, 127], "dim": 0}},
        {"name": "check_long_columns", "role": "check", "params": {"shape": [4097, 3], "dim": 0}},
        {"name": "check_middle", "role": "check", "params": {"shape": [5, 129, 33], "dim": -2, "keepdim": True}},
        {"name": "check_dims_adjacent", "role": "check", "params": {"shape": [7, 33, 65], "dim": [1, 2]}},
        {"name": "check_dims_split", "role": "check",
         "params": {"shape": [9, 33, 65], "dim": [-1, 0], "keepdim": True}},
        {"name": "check_all", "role": "check", "params": {"shape": [3, 17, 129], "dim": []}},
        {"name": "check_all_keepdim", "role": "check", "params": {"shape": [5, 7, 33], "dim": [], "keepdim": True}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "dim": -1, "layout": "transposed"}},
        {"name": "check_strided", "role": "check",
         "params": {"shape": [3, 65, 129], "dim": [0, 2], "layout": "strided"}},
        {"name": "check_late_peak", "role": "check", "params": {"shape": [5, 9001], "dim": -1, "peak": "late"}},
        {"name": "bench_last", "role": "bench", "params": {"shape": [65536, 16384], "dim": -1}},
        {"name": "bench_first", "role": "bench", "params": {"shape": [16384, 65536], "dim": 0}},
        {"name": "bench_middle", "role": "bench", "params": {"shape": [256, 4096, 1024], "dim": 1, "keepdim": True}},
    ],
}


def reference(input, dim=(), keepdim=False):
    return torch.amax(input, dim=dim, keepdim=keepdim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dims = [p["dim"]] if isinstance(p["dim"], int) else p["dim"]
    reduced = {d % len(shape) for d in dims} if dims else set(range(len(shape)))
    x = inputs.randn(shape, "float32", generator, scale=1.0)
    # One offset per output slice in [-12, 8): many slices lie entirely below zero.
    offset_shape = [1 if d in reduced else s for d, s in enumerate(shape)]
    x += torch.floor(inputs.uniform(offset_shape, -12.0, 8.0, "float32", generator))
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=20.0)
    if p.get("peak") == "late":
        x = inputs.late_extremum(x, dims, generator)
    x = inputs.layout(x.to(inputs.torch_dtype(dtype)), p.get("layout", "contiguous"))
    dim = p["dim"] if isinstance(p["dim"], int) else tuple(p["dim"])
    return {"input": x, "dim": dim, "keepdim": p.get("keepdim", False)}
