"""Log-sum-exp over one or more dims, computed stably.

    logsumexp(input, dim, keepdim)[k] = log(sum over the reduced coordinates r of exp(input[k, r]))
                                      = m_k + log(sum_r exp(input[k, r] - m_k)),   m_k = max_r input[k, r]

Mirrors `torch.logsumexp(input, dim, keepdim=False)`: `dim` is an int (negative counts from the end) or a list of
ints (a JSON list here; a tuple works the same). Reduced dims are removed, or kept with size 1 when `keepdim` is
True. The output dtype is the input dtype; bf16 is computed in fp32 and rounded once. A slice whose elements are
all -inf gives -inf.

Half of the workloads add a per-slice offset uniform in [-1000, 1000] (exp overflows to inf above ~88.7 and
underflows to 0 below ~-103 in fp32, so a formula without the max subtraction returns inf or -inf); the others
keep values near 0 with a spread of 4 (so the tolerance, relative to the result, stays tight enough to see a
mistake in the sum). A few elements are -inf (masked logits). `check_masked_rows` has every fourth slice all -inf
(the result is -inf) and about 0.5% of the other elements +inf, so about half its slices hold one (the result is
+inf: an online rescaling that forms inf - inf there returns NaN). In
`check_late_peak` one element of each slice stands 10 above the rest, past the largest power of two below the
slice's length (9001: past element 8192): it dominates the sum, so a kernel that reads only a prefix of a slice
misses most of the result, and one whose online rescaling is wrong sees its running maximum jump late.
Workloads reduce the last, first and a middle dim, two adjacent and two non-adjacent dims, every dim, a few long
columns, keepdim, transposed and strided inputs, with lengths that straddle block sizes (127, 129, 4097).

The default tolerances hold: the solution uses at most 2% of the fp32 tolerance, and its bf16 results are within
one bf16 ulp of PyTorch's (under half the tolerance). PyTorch rounds intermediates (x - max, the sum, the log) to
the input dtype; in fp16, whose tolerance is about one ulp, that alone used 80% of it, hence bf16 here.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "logsumexp",
    "category": "Reduce",
    "level": 1,
    "signature": "(input, dim, keepdim=False)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["logsumexp", "log_softmax", "softmax", "logaddexp", "logaddexp2", "logcumsumexp", "exp", "exp2",
                  "expm1", "log", "log1p", "log2", "log10", "cross_entropy", "nll_loss", "softmin",
                  "special_logsumexp"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 200], "dim": -1, "offset": 1000.0}},
        {"name": "smoke_first", "role": "smoke", "params": {"shape": [200, 16], "dim": 0, "offset": 0.0}},
        {"name": "check_last_127", "role": "check", "params": {"shape": [65, 127], "dim": 1, "offset": 0.0}},
        {"name": "check_last_4097", "role": "check",
         "params": {"shape": [17, 4097], "dim": -1, "keepdim": True, "offset": 1000.0}},
        {"name": "check_first_129", "role": "check", "params": {"shape": [129, 127], "dim": 0, "offset": 1000.0}},
        {"name": "check_long_columns", "role": "check", "params": {"shape": [4097, 3], "dim": 0, "offset": 0.0}},
        {"name": "check_middle", "role": "check",
         "params": {"shape": [5, 129, 33], "dim": -2, "keepdim": True, "offset": 0.0}},
        {"name": "check_dims_adjacent", "role": "check", "params": {"shape": [7, 33, 65], "dim": [1, 2],
                                                                     "offset": 1000.0}},
        {"name": "check_dims_split", "role": "check",
         "params": {"shape": [9, 33, 65], "dim": [-1, 0], "keepdim": True, "offset": 0.0}},
        {"name": "check_all", "role": "check", "params": {"shape": [3, 17, 129], "dim": [0, 1, 2], "offset": 1000.0}},
        {"name": "check_masked_rows", "role": "check",
         "params": {"shape": [33, 129], "dim": 1, "offset": 0.0, "masked_rows": True, "pos_inf": 0.005}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "dim": -1, "offset": 0.0, "layout": "transposed"}},
        {"name": "check_strided", "role": "check",
         "params": {"shape": [3, 65, 129], "dim": [0, 2], "offset": 1000.0, "layout": "strided"}},
        {"name": "check_late_peak", "role": "check",
         "params": {"shape": [5, 9001], "dim": -1, "offset": 0.0, "peak": "late"}},
        {"name": "bench_last", "role": "bench", "params": {"shape": [65536, 16384], "dim": -1, "offset": 0.0}},
        {"name": "bench_first", "role": "bench", "params": {"shape": [16384, 65536], "dim": 0, "offset": 0.0}},
    ],
}


def reference(input, dim, keepdim=False):
    return torch.logsumexp(input, dim, keepdim=keepdim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dims = [p["dim"]] if isinstance(p["dim"], int) else p["dim"]
    reduced = {d % len(shape) for d in dims}
    slice_shape = [1 if d in reduced else s for d, s in enumerate(shape)]
    x = inputs.randn(shape, "float32", generator, scale=4.0)
    if p["offset"]:
        x += inputs.uniform(slice_shape, -p["offset"], p["offset"], "float32", generator)
    # About 1% of the elements are -inf (masked logits).
    x = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.01, float("-inf"), x)
    if p.get("pos_inf"):
        x = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < p["pos_inf"], float("inf"), x)
    if p.get("peak") == "late":
        x = inputs.late_extremum(x, dims, generator, step=10.0)
    if p.get("masked_rows"):
        x[::4] = float("-inf")  # every fourth slice (dim 1 reduced) is entirely -inf: the result is -inf
    x = inputs.layout(x.to(inputs.torch_dtype(dtype)), p.get("layout", "contiguous"))
    dim = p["dim"] if isinstance(p["dim"], int) else tuple(p["dim"])
    return {"input": x, "dim": dim, "keepdim": p.get("keepdim", False)}
