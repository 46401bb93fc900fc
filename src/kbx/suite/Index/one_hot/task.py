"""one_hot: encode integer class ids as rows of zeros with a single one.

    out[..., k] = 1 if tensor[...] == k else 0          (0 <= k < num_classes)

Mirrors `torch.nn.functional.one_hot(tensor, num_classes=-1)`. `tensor` is int64 of any shape with every value
in [0, num_classes); the output is int64 of shape tensor.shape + (num_classes,), so the contract is exact. With
num_classes=-1 the class count is max(tensor) + 1 (two workloads exercise this; the others give it).

Ids repeat and always include 0 and num_classes - 1 (so both ends of a row are exercised). Workloads: 1-D, 2-D
and 3-D id tensors, class counts that straddle block sizes (1, 2, 127, 129, 1000, 4097), a strided
(non-contiguous) and a transposed id tensor, and the inferred class count, once over 9001 ids whose one largest
id lies past element 8192 (`check_inferred_late`: a maximum read from a prefix capped at 8192 ids misses it).
Benches: 1M token ids over 512 classes (a 4 GiB output) and segmentation labels 64 x 512 x 512 over 21 classes.
"""

import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "one_hot",
    "category": "Index",
    "level": 1,
    "signature": "(tensor, num_classes=-1)",
    "dtypes": ["int64"],
    "forbidden": ["one_hot", "scatter", "index_put", "put", "setitem", "eq", "ne", "where",
                  "embedding", "eye", "index_select", "getitem", "bincount"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [20], "num_classes": 10}},
        {"name": "smoke_2d", "role": "smoke", "params": {"shape": [4, 7], "num_classes": 33}},
        {"name": "check_classes_tail", "role": "check", "params": {"shape": [257], "num_classes": 129}},
        {"name": "check_many_classes", "role": "check", "params": {"shape": [3, 11], "num_classes": 4097}},
        {"name": "check_3d", "role": "check", "params": {"shape": [5, 13, 17], "num_classes": 127}},
        {"name": "check_binary", "role": "check", "params": {"shape": [33, 65], "num_classes": 2}},
        {"name": "check_single_class", "role": "check", "params": {"shape": [129], "num_classes": 1}},
        {"name": "check_strided", "role": "check",
         "params": {"shape": [17, 31], "num_classes": 1000, "layout": "strided"}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [19, 23], "num_classes": 65, "layout": "transposed"}},
        {"name": "check_inferred", "role": "check", "params": {"shape": [9, 37], "num_classes": -1, "max": 300}},
        {"name": "check_inferred_late", "role": "check",
         "params": {"shape": [9001], "num_classes": -1, "max": 20, "peak": "late"}},
        {"name": "bench_tokens", "role": "bench", "params": {"shape": [1024, 1024], "num_classes": 512}},
        {"name": "bench_segmentation", "role": "bench", "params": {"shape": [64, 512, 512], "num_classes": 21}},
    ],
}


def reference(tensor, num_classes=-1):
    return F.one_hot(tensor, num_classes)


def make_inputs(workload, dtype, generator):
    p = workload.params
    k = p["num_classes"] if p["num_classes"] > 0 else p["max"] + 1
    late = p.get("peak") == "late"
    ids = inputs.randint(0, k - 1 if late else k, p["shape"], generator)
    flat = ids.view(-1)
    flat[0] = 0 if late else k - 1
    flat[-1] = 0
    if late:
        # The one id k - 1 sits past the largest power of two below the id count, in the last block of any
        # power-of-two tile, so a maximum read from a capped prefix of the ids misses it.
        start = 2 ** ((flat.numel() - 1).bit_length() - 1)
        flat[inputs.randint(start, flat.numel(), [1], generator)] = k - 1
    return {"tensor": inputs.layout(ids, p.get("layout", "contiguous")), "num_classes": p["num_classes"]}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); the class count moves too (an inferred count
    # moves its maximum), except 1 and 2, which exist for their own sake. Layout stays.
    p = workload.params
    shape = sizes.shape_near(rng, p["shape"])
    out = {**p, "shape": shape}
    if p["num_classes"] > 2:
        out["num_classes"] = sizes.odd_near(rng, p["num_classes"], high=1.0, at_least=3)
    if "max" in p:
        out["max"] = sizes.odd_near(rng, p["max"], high=1.0, at_least=3)
    return out
