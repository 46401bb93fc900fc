"""Sum over one or more dims.

    sum(input, dim, keepdim)[k] = sum over the reduced coordinates r of input[k, r]

Mirrors `torch.sum(input, dim, keepdim=keepdim)`. `dim` is an int (negative counts from the end) or a list of
ints (a JSON list here; a tuple works the same) naming distinct dims. The reduced dims are removed from the
output shape, or kept with size 1 when `keepdim` is True. The output dtype is the input dtype; PyTorch
accumulates bf16 in fp32 and rounds once, and a candidate must do the same to stay within tolerance.

Workloads reduce the last dim, the first dim, a middle dim of a 3-D tensor, several dims at once (adjacent and
not), with keepdim True and False, on contiguous, transposed and strided inputs, with reduction lengths that
straddle block sizes (127, 129, 4097) and slices of 9001 (`check_long_rows`), longer than any one block a kernel
may cap a row at (8192). Values have a non-zero mean, so sums grow with the length, and a few
outliers. The `length` parameter of each workload is the number of elements summed into one output; the
absolute tolerance grows with its square root (rounding error of a length-n sum grows like sqrt(n)).

`bench_over_2_31` (65537 rows of 32768: 2^31 + 32768 elements, 8.6 GB in fp32, 4.3 GB in bf16) is the one workload
whose row offsets pass 2^31: a kernel that computes `row * n_cols` in 32 bits reads its last row from about 8 GB
before the tensor. Its input is drawn in place (the same distribution, outliers set by index), so that making it
takes about 9 GB of GPU memory in fp32 and 13 GB in bf16 per worker, not the 40 GB of the general path's fp32
temporaries; with the float64 second opinion the trusted worker peaks near 26 GB.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "sum",
    "category": "Reduce",
    "level": 1,
    "signature": "(input, dim, keepdim=False)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["sum", "nansum", "mean", "nanmean", "sum_to_size", "cumsum", "einsum", "matmul", "mm", "mv",
                  "bmm", "dot", "tensordot", "@"],
    "contract": {"kind": "allclose", "reduction_length": "length"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 200], "dim": -1, "length": 200}},
        {"name": "smoke_first", "role": "smoke", "params": {"shape": [200, 16], "dim": 0, "length": 200}},
        {"name": "check_last_127", "role": "check", "params": {"shape": [65, 127], "dim": 1, "length": 127}},
        {"name": "check_last_4097", "role": "check",
         "params": {"shape": [33, 4097], "dim": -1, "keepdim": True, "length": 4097}},
        {"name": "check_first_129", "role": "check", "params": {"shape": [129, 127], "dim": 0, "length": 129}},
        {"name": "check_first_4097", "role": "check",
         "params": {"shape": [4097, 33], "dim": -2, "keepdim": True, "length": 4097}},
        {"name": "check_middle", "role": "check", "params": {"shape": [5, 129, 33], "dim": 1, "length": 129}},
        {"name": "check_middle_keepdim", "role": "check",
         "params": {"shape": [3, 127, 65], "dim": -2, "keepdim": True, "length": 127}},
        {"name": "check_dims_adjacent", "role": "check",
         "params": {"shape": [7, 33, 65], "dim": [1, 2], "length": 2145}},
        {"name": "check_dims_split", "role": "check",
         "params": {"shape": [9, 33, 65], "dim": [-1, 0], "keepdim": True, "length": 585}},
        {"name": "check_all", "role": "check", "params": {"shape": [3, 17, 129], "dim": [0, 1, 2], "length": 6579}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "dim": -1, "layout": "transposed", "length": 127}},
        {"name": "check_strided", "role": "check",
         "params": {"shape": [3, 65, 129], "dim": [0, 2], "layout": "strided", "length": 387}},
        {"name": "check_long_rows", "role": "check", "params": {"shape": [3, 9001], "dim": -1, "length": 9001}},
        {"name": "bench_last", "role": "bench", "params": {"shape": [65536, 16384], "dim": -1, "length": 16384}},
        {"name": "bench_first", "role": "bench", "params": {"shape": [16384, 65536], "dim": 0, "length": 16384}},
        {"name": "bench_middle", "role": "bench",
         "params": {"shape": [256, 4096, 1024], "dim": 1, "keepdim": True, "length": 4096}},
        {"name": "bench_dims", "role": "bench",
         "params": {"shape": [64, 4096, 4096], "dim": [0, 2], "length": 262144}},
        {"name": "bench_over_2_31", "role": "bench", "params": {"shape": [65537, 32768], "dim": -1, "length": 32768}},
    ],
}


def reference(input, dim, keepdim=False):
    return torch.sum(input, dim, keepdim=keepdim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dims = [p["dim"]] if isinstance(p["dim"], int) else p["dim"]
    assert p["length"] == math.prod(shape[d] for d in dims), "length must be the number of summed elements"
    if math.prod(shape) > _IN_PLACE_ABOVE:
        x = _drawn_in_place(shape, dtype, generator)
    else:
        x = inputs.randn(shape, dtype, generator, scale=1.0, offset=0.5)
        x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=20.0)
    x = inputs.layout(x, p.get("layout", "contiguous"))
    dim = p["dim"] if isinstance(p["dim"], int) else tuple(p["dim"])
    return {"input": x, "dim": dim, "keepdim": p.get("keepdim", False)}


_IN_PLACE_ABOVE = 2**31
"""Inputs with more elements than this are drawn in place (`_drawn_in_place`)."""


def _drawn_in_place(shape, dtype, generator):
    # N(0.5, 1) with +-20 at 1e-3 of the positions (drawn with replacement), as the general path, without its
    # temporaries: one fp32 draw, shifted in place, cast, then the outliers written through a flat view. An
    # outlier's sign is its position's parity: a position drawn twice gets the same value both times. (With signs
    # drawn apart, which write wins at a repeated position is up to the GPU; the trusted and the candidate workers
    # made different inputs, and the solution missed 39 of 65537 rows by 40 on an H200, 2026-11-27.)
    x = torch.randn(tuple(shape), generator=generator, device=generator.device, dtype=torch.float32)
    x = x.add_(0.5).to(inputs.torch_dtype(dtype))
    n = x.numel()
    picked = torch.randint(0, n, (n // 1000,), generator=generator, device=generator.device)
    x.view(-1)[picked] = ((picked % 2) * 40.0 - 20.0).to(x.dtype)
    return x


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); dim, keepdim and layout stay, length follows.
    p = workload.params
    shape = sizes.shape_near(rng, p["shape"])
    dims = [p["dim"]] if isinstance(p["dim"], int) else p["dim"]
    return {**p, "shape": shape, "length": math.prod(shape[d] for d in dims)}
