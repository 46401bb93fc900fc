"""index_select: gather whole slices of a tensor along one dimension, in the order an index names them.

    out[..., j, ...] = input[..., index[j], ...]      (j over index, the selected dimension is `dim`)

Mirrors `torch.index_select(input, dim, index)`. The output has the input's shape with `input.shape[dim]`
replaced by `len(index)`, and the input's dtype; its values are copies, so the contract is exact.
`index` is a 1-D int64 tensor of valid positions (0 <= index[j] < input.shape[dim]) that repeats positions,
is out of order and always names both the first and the last slice. Workloads select along dims 0, 1, the
last dim and negative dims of 1-D, 2-D and 3-D inputs, with contiguous, transposed and strided inputs and a
strided (non-contiguous) index. The bench workloads are an embedding-style row gather from a 1M x 1024
table, a middle-dimension select of a 3-D tensor and a column gather along the last dimension.

`bench_over_2_31` gathers 2097153 rows of 1024 (an output of 2^31 + 1024 elements), where output offsets
computed in 32 bits overflow; it runs on GPUs with 139 GiB or more (`min_gpu_gib`).
"""

import torch

from kbx.tasks import inputs, sizes, work

TASK = {
    "name": "index_select",
    "category": "Index",
    "level": 1,
    "signature": "(input, dim, index)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["index_select", "gather", "take", "take_along_dim", "embedding", "select", "getitem"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 16], "dim": 0, "n_index": 12}},
        {"name": "smoke_dim1", "role": "smoke", "params": {"shape": [6, 20], "dim": 1, "n_index": 9}},
        {"name": "check_rows_tail", "role": "check", "params": {"shape": [257, 129], "dim": 0, "n_index": 300}},
        {"name": "check_1d", "role": "check", "params": {"shape": [1000], "dim": -1, "n_index": 1500}},
        {"name": "check_3d_dim1", "role": "check", "params": {"shape": [5, 129, 33], "dim": 1, "n_index": 100}},
        {"name": "check_last_dim", "role": "check", "params": {"shape": [33, 257], "dim": -1, "n_index": 200}},
        {"name": "check_neg_middle_strided", "role": "check",
         "params": {"shape": [6, 65, 17], "dim": -2, "n_index": 64, "layout": "strided"}},
        {"name": "check_2d_t_dim1", "role": "check",
         "params": {"shape": [127, 129], "dim": 1, "n_index": 77, "layout": "transposed"}},
        {"name": "check_3d_last_t", "role": "check",
         "params": {"shape": [3, 40, 65], "dim": 2, "n_index": 31, "layout": "transposed"}},
        {"name": "check_index_strided", "role": "check",
         "params": {"shape": [40, 7, 9], "dim": 0, "n_index": 90, "index_layout": "strided"}},
        {"name": "bench_embedding", "role": "bench",
         "params": {"shape": [1048576, 1024], "dim": 0, "n_index": 786432}},
        {"name": "bench_over_2_31", "role": "bench", "min_gpu_gib": 139, "timed": False,
         "params": {"shape": [1048576, 1024], "dim": 0, "n_index": 2097153}},
        {"name": "bench_middle", "role": "bench", "params": {"shape": [64, 8192, 1024], "dim": 1, "n_index": 8192}},
        {"name": "bench_columns", "role": "bench",
         "params": {"shape": [8192, 32768], "dim": -1, "n_index": 16384}},
    ],
}


def reference(input, dim, index):
    return torch.index_select(input, dim, index)


def min_bytes(input, dim, index):
    """The speed of light's traffic: the index and each distinct selected slice read once, the output written
    (slices no index names are never needed)."""
    slice_elements = input.numel() // max(input.shape[dim], 1)
    selected = torch.unique(index).numel() * slice_elements * input.element_size()
    return selected + work.tensor_bytes(index) + index.numel() * slice_elements * input.element_size()


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, dim, n = p["shape"], p["dim"], p["n_index"]
    x = inputs.randn(shape, dtype, generator, scale=2.0, offset=0.5)
    size = shape[dim]
    index = inputs.randint(0, size, [n], generator)
    # Always name the last and the first slice, out of order, and repeat one of them.
    index[0], index[1], index[2] = size - 1, 0, size - 1
    if p.get("index_layout", "contiguous") == "strided":
        index = inputs.strided(index)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "dim": dim, "index": index}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements) and an index no longer than published (make_inputs
    # sets its first three entries, so it keeps at least three); dim and layouts stay.
    p = workload.params
    n_index = sizes.odd_near(rng, p["n_index"], high=1.0, at_least=3)
    return {**p, "shape": sizes.shape_near(rng, p["shape"]), "n_index": n_index}
