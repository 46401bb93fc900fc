"""Mean absolute error (L1 loss) between an input and a target of the same shape.

    l_i = |input_i - target_i|
    l1_loss(input, target, reduction) = l (reduction='none'), sum_i l_i ('sum') or (1 / N) sum_i l_i ('mean')

Mirrors `torch.nn.functional.l1_loss(input, target, reduction='mean')` (the deprecated `size_average` and
`reduce` arguments are left out). N is the number of elements; 'none' returns the elementwise losses in the
input's shape, 'sum' and 'mean' a 0-d tensor. The output dtype is the input dtype; PyTorch rounds the
difference to it (|d| adds no rounding) and accumulates fp16 sums in fp32.

Workloads cover the three reductions on 1-D, 2-D and 3-D tensors whose sizes straddle block sizes (127, 129,
4097), and transposed or strided (non-contiguous) inputs and targets. Inputs have a non-zero mean, a spread of 2
and a few outliers of +-30; the signs of the differences are mixed, so taking |.| after summing gives a much
smaller result. The 'sum' results grow with N (to about 3e4 here, within fp16's range); the default tolerances
hold: the solution uses at most 2% of the fp32 tolerance, and its fp16 sums differ from the
reference by at most one fp16 ulp of the total (about half the tolerance).

In two workloads the target's layout differs from the input's (a contiguous target with a transposed
input, a transposed target with a strided input): a kernel that reads the target through the input's strides
passed while the two always shared one layout.
"""

import torch.nn.functional as F

from kbx.tasks import inputs

TASK = {
    "name": "l1_loss",
    "category": "Loss",
    "level": 1,
    "signature": "(input, target, reduction='mean')",
    "dtypes": ["float32", "float16"],
    "forbidden": ["l1_loss", "abs", "absolute", "sum", "nansum", "mean", "nanmean", "norm", "vector_norm",
                  "nuclear_norm", "dist", "pairwise_distance", "cdist", "huber_loss", "smooth_l1_loss", "mse_loss",
                  "matmul", "mm", "mv", "dot", "einsum", "@"],
    "contract": {"kind": "allclose", "reduction_length": "shape/reduction"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke_mean", "role": "smoke", "params": {"shape": [16, 200], "reduction": "mean"}},
        {"name": "smoke_sum", "role": "smoke", "params": {"shape": [1000], "reduction": "sum"}},
        {"name": "smoke_none", "role": "smoke", "params": {"shape": [16, 200], "reduction": "none"}},
        {"name": "check_mean_4097", "role": "check", "params": {"shape": [4097], "reduction": "mean"}},
        {"name": "check_mean_3d", "role": "check", "params": {"shape": [3, 129, 127], "reduction": "mean"}},
        {"name": "check_sum_2d", "role": "check", "params": {"shape": [129, 127], "reduction": "sum"}},
        {"name": "check_none_2d", "role": "check", "params": {"shape": [127, 129], "reduction": "none"}},
        {"name": "check_mean_transposed", "role": "check",
         "params": {"shape": [129, 127], "reduction": "mean", "layout": "transposed",
                    "target_layout": "contiguous"}},
        {"name": "check_none_strided", "role": "check",
         "params": {"shape": [5, 33, 65], "reduction": "none",
                    "layout": "strided", "target_layout": "transposed"}},
        {"name": "check_sum_strided", "role": "check",
         "params": {"shape": [65, 257], "reduction": "sum", "layout": "strided"}},
        {"name": "bench_mean", "role": "bench", "params": {"shape": [32768, 16384], "reduction": "mean"}},
        {"name": "bench_none", "role": "bench", "params": {"shape": [32768, 16384], "reduction": "none"}},
    ],
}


def reference(input, target, reduction="mean"):
    return F.l1_loss(input, target, reduction=reduction)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=30.0)
    y = inputs.randn(p["shape"], dtype, generator, scale=1.0)
    layout = p.get("layout", "contiguous")
    target_layout = p.get("target_layout", layout)  # a target laid out unlike the input, in two workloads
    return {"input": inputs.layout(x, layout), "target": inputs.layout(y, target_layout), "reduction": p["reduction"]}
