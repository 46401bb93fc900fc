"""Kullback-Leibler divergence loss, with the input given as log-probabilities.

    l_i = target_i * (log(target_i) - input_i)        (log_target=False; 0 where target_i = 0)
    l_i = exp(target_i) * (target_i - input_i)        (log_target=True: target holds log-probabilities)
    kl_div = l ('none'), sum_i l_i ('sum'), sum_i l_i / N ('mean', N = number of elements),
             sum_i l_i / input.size(0) ('batchmean', the mathematically proper KL per sample)

Mirrors `torch.nn.functional.kl_div(input, target, reduction='mean', log_target=False)` (the deprecated
`size_average` and `reduce` arguments are left out). `input` and `target` have the same shape; the output has
the input's dtype ('none': its shape; otherwise 0-d). Sums accumulate in fp32.

Inputs are log-softmax outputs over the last dim (distributions of 100 to 4097 classes), targets are softmax
outputs with about 10% of the entries exactly 0 (where target * log(target) must be taken as 0, not 0 * -inf =
NaN), or log-softmax outputs for log_target=True. Workloads cover all four reductions, with 'batchmean' (the one
to use for a true KL divergence) the most common, also on a 3-D input (`check_batchmean_3d`, where input.size(0) is
not the number of rows); 2-D and 3-D inputs with sizes straddling block sizes (127, 129, 4097), transposed and
strided inputs. The default tolerances hold: the solution uses at most 2% of the fp32
tolerance and 40% of the bf16 one (PyTorch evaluates the terms op by op in bf16).

In two workloads the target's layout differs from the input's (a contiguous target with a transposed
input, a transposed target with a strided input): a kernel that reads the target through the input's strides
passed while the two always shared one layout.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs

TASK = {
    "name": "kl_div",
    "category": "Loss",
    "level": 1,
    "signature": "(input, target, reduction='mean', log_target=False)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["kl_div", "KLDivLoss", "xlogy", "special_xlogy", "entr", "special_entr", "log", "log2", "log10",
                  "log1p", "exp", "exp2", "softmax", "log_softmax", "cross_entropy", "sum", "nansum", "mean",
                  "nanmean", "matmul", "mm", "dot", "einsum", "@"],
    "contract": {
        "kind": "allclose",
        "reduction_length": "shape/reduction",
        "insensitive": {
            "workloads": ["check_none"],
            "reason": (
                "PyTorch evaluates target * (log(target) - input) op by op in the dtype: in bf16 the reference's "
                "own error is a large part of most small terms (reduction 'none' shows every term), and a kernel "
                "that computes the same way must pass"
            ),
        },
    },
    "perturb": "shape",
    "workloads": [
        {"name": "smoke_batchmean", "role": "smoke",
         "params": {"shape": [16, 100], "reduction": "batchmean", "log_target": False}},
        {"name": "smoke_none_log_target", "role": "smoke",
         "params": {"shape": [16, 100], "reduction": "none", "log_target": True}},
        {"name": "check_batchmean_4097", "role": "check",
         "params": {"shape": [17, 4097], "reduction": "batchmean", "log_target": False}},
        {"name": "check_batchmean_log_target", "role": "check",
         "params": {"shape": [129, 127], "reduction": "batchmean", "log_target": True}},
        {"name": "check_batchmean_3d", "role": "check",
         "params": {"shape": [5, 33, 129], "reduction": "batchmean", "log_target": False}},
        {"name": "check_mean", "role": "check", "params": {"shape": [129, 127], "reduction": "mean",
                                                          "log_target": False}},
        {"name": "check_sum_3d", "role": "check",
         "params": {"shape": [5, 33, 129], "reduction": "sum", "log_target": True}},
        {"name": "check_none", "role": "check", "params": {"shape": [127, 129], "reduction": "none",
                                                          "log_target": False}},
        {"name": "check_batchmean_transposed", "role": "check",
         "params": {"shape": [129, 127], "reduction": "batchmean", "log_target": False, "layout": "transposed",
                    "target_layout": "contiguous"}},
        {"name": "check_none_strided", "role": "check",
         "params": {"shape": [3, 33, 65], "reduction": "none", "log_target": True,
                    "layout": "strided", "target_layout": "transposed"}},
        {"name": "bench_batchmean", "role": "bench",
         "params": {"shape": [16384, 32000], "reduction": "batchmean", "log_target": False}},
        {"name": "bench_none", "role": "bench",
         "params": {"shape": [16384, 32000], "reduction": "none", "log_target": True}},
    ],
}


def reference(input, target, reduction="mean", log_target=False):
    return F.kl_div(input, target, reduction=reduction, log_target=log_target)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = torch.log_softmax(inputs.randn(shape, "float32", generator, scale=2.0), dim=-1)
    logits = inputs.randn(shape, "float32", generator, scale=2.0)
    if p["log_target"]:
        t = torch.log_softmax(logits, dim=-1)
    else:
        t = torch.softmax(logits, dim=-1)
        t = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.1, 0.0, t)
    layout = p.get("layout", "contiguous")
    target_layout = p.get("target_layout", layout)  # a target laid out unlike the input, in two workloads
    cast = inputs.torch_dtype(dtype)
    return {"input": inputs.layout(x.to(cast), layout), "target": inputs.layout(t.to(cast), target_layout),
            "reduction": p["reduction"], "log_target": p["log_target"]}
