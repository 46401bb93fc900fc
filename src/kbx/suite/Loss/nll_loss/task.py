"""Negative log-likelihood loss with class-index targets, optional class weights and an ignored index.

    l_i = -weight[t_i] * input[i, t_i]   and   w_i = weight[t_i]      if t_i != ignore_index
    l_i = 0                              and   w_i = 0                 if t_i == ignore_index
    nll_loss = l ('none'), sum_i l_i ('sum'), sum_i l_i / sum_i w_i ('mean')

Mirrors `torch.nn.functional.nll_loss(input, target, weight=None, ignore_index=-100, reduction='mean')` (the
deprecated `size_average` and `reduce` arguments are left out). `input` holds log-probabilities of shape (N, C),
(N, C, d1) or (N, C, d1, d2) (classes in dim 1), or (C,) with a 0-d target; `target` is int64 of the input's shape
without dim 1, each entry in [0, C) or equal to `ignore_index`; `weight` is None (all ones) or a (C,) tensor in the
input's dtype. 'mean' divides by the total WEIGHT of the non-ignored targets, not by their count nor by N. The
output is in the input's dtype ('none': the target's shape; otherwise 0-d); bf16 sums accumulate in fp32.

Workloads: about 20% of the targets equal the ignore index (-100, 255 as in segmentation, or 0, a real class)
except in two workloads with none ignored and one with all ignored ('mean' is then 0 / 0 = NaN, as in PyTorch, and
a candidate must return NaN too: a NaN matches only a NaN); class weights in [0.2, 3] or None; all three
reductions; (N, C), (N, C, d) and (N, C, h, w) inputs, a transposed (non-contiguous) (N, C) input and the
unbatched (C,) form. Class counts straddle block sizes (10, 127, 129, 1000, 4097). The default tolerances hold:
the solution uses at most 1% of the fp32 tolerance and 40% of the bf16 one (one bf16 rounding of the 0-d result).
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, work

TASK = {
    "name": "nll_loss",
    "category": "Loss",
    "level": 1,
    "signature": "(input, target, weight=None, ignore_index=-100, reduction='mean')",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["nll_loss", "NLLLoss2d", "cross_entropy", "gather", "take_along_dim", "take", "index_select",
                  "embedding", "one_hot", "scatter", "scatter_add", "index_add", "sum", "nansum", "mean", "nanmean",
                  "bincount", "matmul", "mm", "mv", "dot", "einsum", "@", "masked_select", "where"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke_mean", "role": "smoke",
         "params": {"shape": [64, 10], "weighted": False, "ignore_index": -100, "reduction": "mean"}},
        {"name": "smoke_none", "role": "smoke",
         "params": {"shape": [64, 10], "weighted": True, "ignore_index": -100, "reduction": "none"}},
        {"name": "check_mean_weighted", "role": "check",
         "params": {"shape": [4097, 129], "weighted": True, "ignore_index": -100, "reduction": "mean"}},
        {"name": "check_mean_no_ignored", "role": "check",
         "params": {"shape": [1025, 1000], "weighted": True, "ignore_index": -100, "reduction": "mean",
                    "ignored_fraction": 0.0}},
        {"name": "check_mean_all_ignored", "role": "check",
         "params": {"shape": [33, 10], "weighted": True, "ignore_index": -100, "reduction": "mean",
                    "ignored_fraction": 1.0}},
        {"name": "check_sum", "role": "check",
         "params": {"shape": [127, 4097], "weighted": False, "ignore_index": -100, "reduction": "sum"}},
        {"name": "check_none_3d", "role": "check",
         "params": {"shape": [5, 127, 33], "weighted": True, "ignore_index": 0, "reduction": "none"}},
        {"name": "check_mean_4d", "role": "check",
         "params": {"shape": [3, 19, 33, 65], "weighted": True, "ignore_index": 255, "reduction": "mean"}},
        {"name": "check_sum_4d", "role": "check",
         "params": {"shape": [2, 10, 65, 33], "weighted": False, "ignore_index": 255, "reduction": "sum"}},
        {"name": "check_mean_transposed", "role": "check",
         "params": {"shape": [257, 129], "weighted": False, "ignore_index": 0, "reduction": "mean",
                    "layout": "transposed"}},
        {"name": "check_unbatched", "role": "check",
         "params": {"shape": [127], "weighted": True, "ignore_index": -100, "reduction": "mean",
                    "ignored_fraction": 0.0}},
        {"name": "bench_seg_mean", "role": "bench",
         "params": {"shape": [128, 19, 512, 1024], "weighted": True, "ignore_index": 255, "reduction": "mean"}},
        {"name": "bench_seg_none", "role": "bench",
         "params": {"shape": [128, 19, 512, 1024], "weighted": False, "ignore_index": 255, "reduction": "none"}},
    ],
}


def reference(input, target, weight=None, ignore_index=-100, reduction="mean"):
    return F.nll_loss(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction)


def min_bytes(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """The speed of light's traffic: the targets, one input element per non-ignored target and the weights of the
    classes they name read, the output written (counting the input whole would charge all 19 classes of a pixel on
    the segmentation benches, where a kernel needs the target's one: an honest kernel was rejected as faster than
    light)."""
    kept = target[target != ignore_index]
    gathered = kept.numel() + (torch.unique(kept).numel() if weight is not None else 0)
    written = target.numel() if reduction == "none" else 1
    return work.tensor_bytes(target) + (gathered + written) * input.element_size()


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    n_classes = shape[0] if len(shape) == 1 else shape[1]
    target_shape = [] if len(shape) == 1 else [shape[0], *shape[2:]]
    # Log-probability-like values: negative, a few units apart.
    x = inputs.randn(shape, "float32", generator, scale=2.0, offset=-4.0)
    x = inputs.layout(x.to(inputs.torch_dtype(dtype)), p.get("layout", "contiguous"))
    target = inputs.randint(0, n_classes, target_shape, generator)
    ignored = inputs.uniform(target_shape, 0.0, 1.0, "float32", generator) < p.get("ignored_fraction", 0.2)
    target = torch.where(ignored, p["ignore_index"], target)
    weight = inputs.uniform([n_classes], 0.2, 3.0, dtype, generator) if p["weighted"] else None
    return {"input": x, "target": target, "weight": weight, "ignore_index": p["ignore_index"],
            "reduction": p["reduction"]}
