"""take_along_dim: pick values along one dimension at the positions an index tensor gives, with broadcasting.

    dim given:  out[i][j][k] = input'[i][j][indices'[i][j][k]]     (dim = 2; likewise for other dims)
    dim=None:   out = flatten(input)[flatten(indices)]              (a 1-D output)

where input' and indices' are input and indices broadcast against each other in every dimension except `dim`
(along `dim` input keeps its size and indices keeps its own). Mirrors `torch.take_along_dim(input, indices,
dim=None)`. `indices` is int64 with input's number of dimensions when `dim` is given (any shape otherwise), its
values valid positions (0 <= index < input.size(dim), or < input.numel() for dim=None) that repeat and include
both ends. The output has input's dtype and holds copies: the contract is exact.

Workloads: the top-k pattern (indices along the last dim), dims 0 and middle, negative dims, indices broadcast
over a dim of input (one set of positions for every channel), input broadcast over a dim of indices, the
flattened dim=None form, and transposed and strided inputs and a strided index (with dim=None PyTorch needs
viewable, i.e. contiguous, tensors, so that form is only given contiguous ones). Benches: a last-dim gather of
half of each row of a 16384 x 16384 tensor and a dim=None gather of 128M random elements from it.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "take_along_dim",
    "category": "Index",
    "level": 1,
    "signature": "(input, indices, dim=None)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["take_along_dim", "gather", "take", "index_select", "embedding", "getitem", "scatter"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 16], "index_shape": [8, 5], "dim": 1}},
        {"name": "smoke_flat", "role": "smoke", "params": {"shape": [6, 7], "index_shape": [3, 9], "dim": None}},
        {"name": "check_topk_tail", "role": "check",
         "params": {"shape": [33, 257], "index_shape": [33, 129], "dim": -1}},
        {"name": "check_dim0", "role": "check", "params": {"shape": [129, 65], "index_shape": [200, 65], "dim": 0}},
        {"name": "check_broadcast_indices", "role": "check",
         "params": {"shape": [3, 17, 129], "index_shape": [3, 1, 40], "dim": 2}},
        {"name": "check_broadcast_input", "role": "check",
         "params": {"shape": [1, 127], "index_shape": [65, 33], "dim": -1}},
        {"name": "check_middle_neg", "role": "check",
         "params": {"shape": [5, 65, 9], "index_shape": [5, 31, 1], "dim": -2}},
        {"name": "check_flat_tail", "role": "check",
         "params": {"shape": [33, 65], "index_shape": [4097], "dim": None}},
        {"name": "check_strided_both", "role": "check",
         "params": {"shape": [9, 31, 45], "index_shape": [9, 31, 20], "dim": 2, "layout": "strided",
                    "index_layout": "strided"}},
        {"name": "bench_topk_rows", "role": "bench",
         "params": {"shape": [16384, 16384], "index_shape": [16384, 8192], "dim": -1}},
        {"name": "bench_flat", "role": "bench",
         "params": {"shape": [16384, 16384], "index_shape": [8192, 16384], "dim": None}},
    ],
}


def reference(input, indices, dim=None):
    return torch.take_along_dim(input, indices, dim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, index_shape, dim = p["shape"], p["index_shape"], p["dim"]
    x = inputs.randn(shape, dtype, generator, scale=2.0, offset=0.5)
    size = x.numel() if dim is None else shape[dim]
    idx = inputs.randint(0, size, index_shape, generator)
    flat = idx.view(-1)
    flat[0], flat[-1] = size - 1, 0
    return {
        "input": inputs.layout(x, p.get("layout", "contiguous")),
        "indices": inputs.layout(idx, p.get("index_layout", "contiguous")),
        "dim": dim,
    }


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements). With a dim, every other dim moves together in
    # input and indices (a size of 1, a broadcast, stays 1); dim, broadcasting and layouts stay.
    p = workload.params
    shape, index_shape, dim = p["shape"], p["index_shape"], p["dim"]
    new_shape = sizes.shape_near(rng, shape)
    new_index = sizes.shape_near(rng, index_shape)
    if dim is not None:
        d = dim % len(shape)
        for i in range(len(shape)):
            if i != d and shape[i] != 1 and index_shape[i] != 1:
                new_index[i] = new_shape[i] = min(new_shape[i], new_index[i])
    return {**p, "shape": new_shape, "index_shape": new_index}
