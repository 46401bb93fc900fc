"""Smooth L1 loss: quadratic for small differences, linear for large ones, with the switch at `beta`.

    z_i = |input_i - target_i|
    l_i = 0.5 * z_i^2 / beta    if z_i < beta
          z_i - 0.5 * beta      otherwise
    smooth_l1_loss(input, target, reduction, beta) = l ('none'), sum_i l_i ('sum') or (1 / N) sum_i l_i ('mean')

Mirrors `torch.nn.functional.smooth_l1_loss(input, target, reduction='mean', beta=1.0)` (the deprecated
`size_average` and `reduce` arguments are left out). beta = 0 is the L1 loss (no element is below 0, and the
quadratic branch must not be evaluated into the result). N is the number of elements; 'none' returns the
elementwise losses in the input's shape, 'sum' and 'mean' a 0-d tensor in the input's dtype. PyTorch computes
`input - target` in the input dtype (for bf16 the difference is rounded); sums accumulate in fp32.

Workloads cover the three reductions, beta = 1 (default), 0.5, 2 and 0, on 1-D, 2-D and 3-D tensors whose sizes
straddle block sizes (127, 129, 4097), and transposed or strided (non-contiguous) inputs and targets. Differences
are spread around 0.5 with a standard deviation of about 2.2 and a few outliers of +-30, so both branches are
taken often and beta changes the result. The default tolerances hold: the solution uses at most 2% of the fp32
tolerance and about 25% of the bf16 one (PyTorch rounds its intermediate products in bf16).

In two workloads the target's layout differs from the input's (a contiguous target with a transposed
input, a transposed target with a strided input): a kernel that reads the target through the input's strides
passed while the two always shared one layout.
"""

import torch.nn.functional as F

from kbx.tasks import inputs

TASK = {
    "name": "smooth_l1_loss",
    "category": "Loss",
    "level": 1,
    "signature": "(input, target, reduction='mean', beta=1.0)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["smooth_l1_loss", "huber_loss", "l1_loss", "mse_loss", "abs", "absolute", "where", "clamp",
                  "clip", "minimum", "fmin", "sum", "nansum", "mean", "nanmean", "matmul", "dot", "einsum", "@"],
    "contract": {"kind": "allclose", "reduction_length": "shape/reduction"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke_mean", "role": "smoke", "params": {"shape": [16, 200], "reduction": "mean", "beta": 1.0}},
        {"name": "smoke_none", "role": "smoke", "params": {"shape": [1000], "reduction": "none", "beta": 0.5}},
        {"name": "check_mean_4097", "role": "check", "params": {"shape": [4097], "reduction": "mean", "beta": 2.0}},
        {"name": "check_sum_3d", "role": "check",
         "params": {"shape": [3, 129, 127], "reduction": "sum", "beta": 0.5}},
        {"name": "check_none_2d", "role": "check", "params": {"shape": [127, 129], "reduction": "none", "beta": 2.0}},
        {"name": "check_beta_zero", "role": "check", "params": {"shape": [129, 65], "reduction": "none", "beta": 0.0}},
        {"name": "check_mean_transposed", "role": "check",
         "params": {"shape": [129, 127], "reduction": "mean", "beta": 1.0, "layout": "transposed",
                    "target_layout": "contiguous"}},
        {"name": "check_none_strided", "role": "check",
         "params": {"shape": [5, 33, 65], "reduction": "none", "beta": 1.0,
                    "layout": "strided", "target_layout": "transposed"}},
        {"name": "check_sum_strided", "role": "check",
         "params": {"shape": [65, 257], "reduction": "sum", "beta": 2.0, "layout": "strided"}},
        {"name": "bench_mean", "role": "bench", "params": {"shape": [32768, 16384], "reduction": "mean", "beta": 1.0}},
        {"name": "bench_none", "role": "bench", "params": {"shape": [32768, 16384], "reduction": "none", "beta": 0.5}},
    ],
}


def reference(input, target, reduction="mean", beta=1.0):
    return F.smooth_l1_loss(input, target, reduction=reduction, beta=beta)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=30.0)
    y = inputs.randn(p["shape"], dtype, generator, scale=1.0)
    layout = p.get("layout", "contiguous")
    target_layout = p.get("target_layout", layout)  # a target laid out unlike the input, in two workloads
    return {"input": inputs.layout(x, layout), "target": inputs.layout(y, target_layout), "reduction": p["reduction"],
            "beta": p["beta"]}
