"""masked_fill: replace the elements of a tensor where a boolean mask is True by one value.

    out[i] = value if mask[i] else input[i]          (mask broadcast to input's shape)

Mirrors `torch.masked_fill(input, mask, value)` with a Python float `value`. `mask` is a bool tensor whose shape
broadcasts to input's (the output never grows: input's shape is the output's); the output has input's dtype and
holds copies of input or `value` rounded once to that dtype, so the contract is exact. Values include -inf (the
attention-masking use), 0 and -10000.

Workloads: a same-shape mask, row, column and lower-rank masks, an attention mask (B, 1, S, S) broadcast over
heads, a 0-d mask, transposed and strided inputs and a strided mask. Mask densities range from sparse to mostly
True. Benches: a causal-style mask broadcast over 32 heads of 6 x 2048 x 2048 attention scores (6.4 GB of input
and output in fp32), and a same-shape mask over a 32768 x 16384 tensor.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "masked_fill",
    "category": "Index",
    "level": 1,
    "signature": "(input, mask, value)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["masked_fill", "masked_scatter", "where", "index_put", "put", "setitem", "clamp", "fill",
                  "copysign", "mul", "multiply", "add"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 100], "mask_shape": [8, 100], "value": 0.0}},
        {"name": "smoke_row_neg_inf", "role": "smoke",
         "params": {"shape": [6, 33], "mask_shape": [33], "value": "-inf"}},
        {"name": "check_same_tail", "role": "check",
         "params": {"shape": [4097], "mask_shape": [4097], "value": -10000.0, "density": 0.9}},
        {"name": "check_column", "role": "check",
         "params": {"shape": [129, 127], "mask_shape": [129, 1], "value": 2.5}},
        {"name": "check_attention", "role": "check",
         "params": {"shape": [2, 5, 33, 65], "mask_shape": [2, 1, 33, 65], "value": "-inf", "causal": True}},
        {"name": "check_middle_3d", "role": "check",
         "params": {"shape": [7, 65, 33], "mask_shape": [1, 65, 1], "value": -10000.0}},
        {"name": "check_0d_mask", "role": "check", "params": {"shape": [33, 31], "mask_shape": [], "value": 2.5}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [127, 129], "mask_shape": [127, 129], "value": 0.0, "layout": "transposed",
                    "density": 0.1}},
        {"name": "check_strided_both", "role": "check",
         "params": {"shape": [5, 33, 65], "mask_shape": [33, 65], "value": "-inf", "layout": "strided",
                    "mask_layout": "strided"}},
        {"name": "bench_attention", "role": "bench",
         "params": {"shape": [6, 32, 2048, 2048], "mask_shape": [6, 1, 2048, 2048], "value": "-inf",
                    "causal": True}},
        {"name": "bench_same_shape", "role": "bench",
         "params": {"shape": [32768, 16384], "mask_shape": [32768, 16384], "value": 0.0}},
    ],
}


def reference(input, mask, value):
    return torch.masked_fill(input, mask, value)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, mask_shape = p["shape"], p["mask_shape"]
    x = inputs.randn(shape, dtype, generator, scale=2.0, offset=0.5)
    density = p.get("density", 0.5)
    mask = inputs.uniform(mask_shape, 0, 1, "float32", generator) < density
    if p.get("causal"):
        # Upper triangle masked (future positions), plus random padding positions.
        rows, cols = mask_shape[-2], mask_shape[-1]
        tri = torch.ones(rows, cols, dtype=torch.bool, device=mask.device).triu(1)
        mask = tri | (mask & (inputs.uniform(mask_shape, 0, 1, "float32", generator) < 0.1))
    if mask.dim() > 0:
        mask = inputs.layout(mask, p.get("mask_layout", "contiguous"))
    value = p["value"]
    return {
        "input": inputs.layout(x, p.get("layout", "contiguous")),
        "mask": mask,
        "value": float(value) if isinstance(value, str) else value,
    }


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements), moved together in input and mask: a mask size of
    # 1 (broadcast) stays 1, and the mask's dims align with input's trailing dims. Everything else stays.
    p = workload.params
    shape, mask_shape = p["shape"], p["mask_shape"]
    moved = sizes.shape_near(rng, shape)
    lead = len(shape) - len(mask_shape)
    new_mask = [1 if m == 1 else moved[lead + i] for i, m in enumerate(mask_shape)]
    return {**p, "shape": moved, "mask_shape": new_mask}
