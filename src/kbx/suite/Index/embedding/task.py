"""embedding: look up rows of a table by integer ids.

    out[..., :] = weight[input[...], :]          out.shape = input.shape + (embedding_dim,)

Mirrors `torch.nn.functional.embedding(input, weight, padding_idx=None)` (no max_norm, no sparse gradients).
`input` is int64 of any shape with every id in [0, num_embeddings); `weight` is (num_embeddings,
embedding_dim); the output has weight's dtype and holds copies, so the contract is exact. `padding_idx` (an
int, negative values counting from the end) only stops the gradient at that row: the forward pass still
returns weight[padding_idx] wherever it occurs, whatever that row holds. Here the padding row holds non-zero
values and its id is frequent, so a kernel that writes zeros for it fails.

Ids repeat, and always include the first and last row. Workloads: 1-D, 2-D and 3-D id tensors, embedding dims
that straddle block sizes (1, 33, 127, 129, 1000), padding_idx positive and negative, a strided
(non-contiguous) id tensor, and a transposed weight (a tied output projection's matrix seen as its
transpose). Benches: a 128256 x 4096 vocabulary table read by 32 x 4096 tokens, and a recommender-style 4M x
128 table read by 65536 x 128 ids.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "embedding",
    "category": "Index",
    "level": 1,
    "signature": "(input, weight, padding_idx=None)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["embedding", "embedding_bag", "index_select", "gather", "take", "take_along_dim", "getitem",
                  "one_hot", "matmul", "mm", "@"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"ids": [12], "num": 10, "dim": 16}},
        {"name": "smoke_pad", "role": "smoke", "params": {"ids": [3, 7], "num": 20, "dim": 9, "padding_idx": 0}},
        {"name": "check_dim_tail", "role": "check", "params": {"ids": [257], "num": 300, "dim": 129}},
        {"name": "check_pad_neg_3d", "role": "check",
         "params": {"ids": [2, 5, 13], "num": 1000, "dim": 127, "padding_idx": -1}},
        {"name": "check_wide_rows", "role": "check", "params": {"ids": [4, 9], "num": 65, "dim": 1000}},
        {"name": "check_dim1", "role": "check", "params": {"ids": [33, 31], "num": 4097, "dim": 1}},
        {"name": "check_ids_strided_pad", "role": "check",
         "params": {"ids": [17, 33], "num": 129, "dim": 33, "padding_idx": 5, "ids_layout": "strided"}},
        {"name": "check_weight_transposed", "role": "check",
         "params": {"ids": [7, 19], "num": 513, "dim": 65, "weight_layout": "transposed"}},
        {"name": "bench_vocab", "role": "bench", "params": {"ids": [32, 4096], "num": 128256, "dim": 4096}},
        {"name": "bench_recsys", "role": "bench", "params": {"ids": [65536, 128], "num": 4194304, "dim": 128}},
    ],
}


def reference(input, weight, padding_idx=None):
    return F.embedding(input, weight, padding_idx=padding_idx)


def make_inputs(workload, dtype, generator):
    p = workload.params
    num, dim = p["num"], p["dim"]
    weight = inputs.randn([num, dim], dtype, generator, scale=1.5, offset=0.25)
    ids = inputs.randint(0, num, p["ids"], generator)
    flat = ids.view(-1)
    flat[0], flat[-1] = num - 1, 0
    padding_idx = p.get("padding_idx")
    if padding_idx is not None:
        # Make the padding row frequent (about one id in eight), as padded batches are.
        pad_row = padding_idx % num
        pad = inputs.uniform(p["ids"], 0, 1, "float32", generator) < 0.125
        ids = torch.where(pad, pad_row, ids)
    if p.get("ids_layout") == "strided":
        ids = inputs.strided(ids)
    if p.get("weight_layout") == "transposed":
        weight = inputs.transposed(weight)
    out = {"input": ids, "weight": weight}
    if padding_idx is not None:
        out["padding_idx"] = padding_idx
    return out


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); a table still larger than the padding id;
    # padding_idx and layouts stay.
    p = workload.params
    num = sizes.odd_near(rng, p["num"], high=1.0, at_least=8)
    return {**p, "ids": sizes.shape_near(rng, p["ids"]), "num": num, "dim": sizes.odd_near(rng, p["dim"], high=1.0)}
