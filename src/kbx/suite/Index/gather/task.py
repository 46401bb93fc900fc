"""gather: pick, for every position of an index tensor, one element of the input along one dimension.

    out[i][j][k] = input[index[i][j][k]][j][k]      (dim = 0)
    out[i][j][k] = input[i][index[i][j][k]][k]      (dim = 1)
    out[i][j][k] = input[i][j][index[i][j][k]]      (dim = 2)

Mirrors `torch.gather(input, dim, index)` (sparse_grad=False). `index` is int64 with as many dimensions as
`input`; the output has `index`'s shape and `input`'s dtype. Along every dimension d != dim, index.size(d) <=
input.size(d) (a smaller index reads only the leading part of the input), and along `dim` the index may be
longer than the input. Its values are valid positions (0 <= index < input.size(dim)) that repeat, appear in
random order and always include 0 and input.size(dim) - 1. The output holds copies, so the contract is exact.

Workloads gather along the first, a middle, the last and negative dims of 1-D, 2-D and 3-D inputs, with
indices both smaller and larger than the input, transposed and strided inputs, and a strided (non-contiguous)
index. Benches: a last-dim gather (top-k style selection of columns per row) and a dim-0 gather.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "gather",
    "category": "Index",
    "level": 1,
    "signature": "(input, dim, index)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["gather", "take_along_dim", "take", "index_select", "embedding", "getitem", "scatter"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 16], "index_shape": [8, 10], "dim": 1}},
        {"name": "smoke_dim0", "role": "smoke", "params": {"shape": [12, 6], "index_shape": [20, 5], "dim": 0}},
        {"name": "check_1d", "role": "check", "params": {"shape": [1000], "index_shape": [4097], "dim": 0}},
        {"name": "check_last_tail", "role": "check",
         "params": {"shape": [129, 257], "index_shape": [127, 300], "dim": -1}},
        {"name": "check_dim0_smaller", "role": "check",
         "params": {"shape": [257, 129], "index_shape": [100, 65], "dim": 0}},
        {"name": "check_3d_middle", "role": "check",
         "params": {"shape": [5, 129, 33], "index_shape": [4, 200, 31], "dim": 1}},
        {"name": "check_3d_first_t", "role": "check",
         "params": {"shape": [40, 33, 65], "index_shape": [57, 33, 64], "dim": 0, "layout": "transposed"}},
        {"name": "check_3d_neg_strided", "role": "check",
         "params": {"shape": [6, 65, 17], "index_shape": [6, 63, 17], "dim": -2, "layout": "strided"}},
        {"name": "check_index_strided", "role": "check",
         "params": {"shape": [33, 127], "index_shape": [31, 129], "dim": 1, "index_layout": "strided"}},
        {"name": "bench_last_dim", "role": "bench",
         "params": {"shape": [32768, 16384], "index_shape": [32768, 8192], "dim": -1}},
        {"name": "bench_dim0", "role": "bench",
         "params": {"shape": [8192, 16384], "index_shape": [8192, 16384], "dim": 0}},
    ],
}


def reference(input, dim, index):
    return torch.gather(input, dim, index)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, index_shape, dim = p["shape"], p["index_shape"], p["dim"]
    x = inputs.randn(shape, dtype, generator, scale=2.0, offset=0.5)
    size = shape[dim]
    index = inputs.randint(0, size, index_shape, generator)
    # Name the first and the last position, so an off-by-one or a wrong dim size shows up.
    flat = index.view(-1)
    flat[0], flat[-1] = size - 1, 0
    if p.get("index_layout", "contiguous") == "strided":
        index = inputs.strided(index)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "dim": dim, "index": index}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); along every dim but `dim` the index stays no
    # larger than the input. dim and layouts stay.
    p = workload.params
    rank = len(p["shape"])
    dim = p["dim"] % rank
    shape = sizes.shape_near(rng, p["shape"])
    index_shape = [sizes.odd_near(rng, n, high=1.0) for n in p["index_shape"]]
    index_shape = [n if d == dim else min(n, shape[d]) for d, n in enumerate(index_shape)]
    return {**p, "shape": shape, "index_shape": index_shape}
