"""Layer normalization over the trailing `normalized_shape` dimensions.

    mean = E[x],  var = E[(x - mean)^2]              (over the last len(normalized_shape) dims; biased variance)
    y = (x - mean) / sqrt(var + eps) * weight + bias  (weight, bias of shape normalized_shape; each optional)

Mirrors `torch.nn.functional.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5)`.
`normalized_shape` is a list of one or two trailing sizes. The output has the input's shape and dtype; bf16
inputs (with bf16 weight and bias) are computed in fp32 and rounded once, as PyTorch does.

Inputs have large means (50 to 150, varying per row) next to a modest spread, so the one-pass variance
E[x^2] - E[x]^2 cancels catastrophically in fp32; per-row standard deviations vary fourfold, and some
workloads have small variances or a large `eps` so that dropping `eps` or using the unbiased variance (divide by
N - 1) shows. Workloads cover weight and bias present, weight alone, bias alone (F.layer_norm accepts a bias
without a weight) and neither; row lengths of 100, 101, 127, 129, 4097 and 20485 (longer than one block);
transposed or strided (non-contiguous) inputs; and rows that are contiguous but whose leading dims do not merge
(the first 9 positions of 16-long sequences: a kernel that steps rows by stride(-2) reads padding).
The fp32 tolerance is 2e-4: with |mean| / std up to 300, an fp32 mean is off by a few ulp(mean), which
moves the outputs by ~1e-4 in any implementation; PyTorch's own CUDA kernel is ~1e-4 from the fp64 result
on the bench (8192-long rows), while the one-pass variance misses by ~5e-3 on 100-long rows.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "layer_norm",
    "category": "Normalization",
    "level": 1,
    "signature": "(input, normalized_shape, weight=None, bias=None, eps=1e-05)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["layer_norm", "native_layer_norm", "group_norm", "batch_norm", "instance_norm", "rms_norm",
                  "normalize", "mean", "var", "std", "var_mean", "std_mean", "sum"],
    "contract": {"kind": "allclose", "tolerance": {"float32": [2e-4, 2e-4]}},
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"shape": [8, 100], "normalized_shape": [100], "affine": "both", "offset": 100.0, "scale": 1.0}},
        {"name": "smoke_2d_plain", "role": "smoke",
         "params": {"shape": [6, 5, 33], "normalized_shape": [5, 33], "affine": "none", "offset": 100.0,
                    "scale": 2.0}},
        {"name": "check_seq_slice", "role": "check",
         "params": {"shape": [3, 9, 129], "normalized_shape": [129], "affine": "both", "offset": 100.0,
                    "scale": 1.0, "layout": "seq_slice"}},
        {"name": "check_101_bias_only", "role": "check",
         "params": {"shape": [9, 101], "normalized_shape": [101], "affine": "bias", "offset": 100.0, "scale": 1.0}},
        {"name": "check_small_var", "role": "check",
         "params": {"shape": [64, 1000], "normalized_shape": [1000], "affine": "both", "offset": 0.0,
                    "scale": 0.01}},
        {"name": "check_large_eps", "role": "check",
         "params": {"shape": [40, 96], "normalized_shape": [96], "affine": "none", "offset": 10.0, "scale": 0.5,
                    "eps": 0.1}},
        {"name": "check_127", "role": "check",
         "params": {"shape": [65, 127], "normalized_shape": [127], "affine": "both", "offset": 100.0, "scale": 1.0}},
        {"name": "check_129_weight_only", "role": "check",
         "params": {"shape": [33, 129], "normalized_shape": [129], "affine": "weight", "offset": 100.0,
                    "scale": 2.0}},
        {"name": "check_4097", "role": "check",
         "params": {"shape": [17, 4097], "normalized_shape": [4097], "affine": "both", "offset": 100.0,
                    "scale": 2.0}},
        {"name": "check_long_2d", "role": "check",
         "params": {"shape": [3, 5, 4097], "normalized_shape": [5, 4097], "affine": "both", "offset": 100.0,
                    "scale": 2.0}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "normalized_shape": [127], "affine": "none", "offset": 100.0,
                    "scale": 2.0, "layout": "transposed"}},
        {"name": "check_strided_2d", "role": "check",
         "params": {"shape": [4, 7, 65], "normalized_shape": [7, 65], "affine": "both", "offset": 100.0,
                    "scale": 2.0, "layout": "strided"}},
        {"name": "bench", "role": "bench",
         "params": {"shape": [65536, 8192], "normalized_shape": [8192], "affine": "both", "offset": 100.0,
                    "scale": 2.0}},
        {"name": "bench_2d_plain", "role": "bench",
         "params": {"shape": [8192, 64, 1024], "normalized_shape": [64, 1024], "affine": "none", "offset": 100.0,
                    "scale": 2.0}},
    ],
}


def reference(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, norm = p["shape"], p["normalized_shape"]
    row_shape = shape[: len(shape) - len(norm)] + [1] * len(norm)  # one entry per normalized row
    # Per-row mean in [offset/2, 3*offset/2] and standard deviation in [scale/2, 2*scale].
    mean = inputs.uniform(row_shape, 0.5 * p["offset"], 1.5 * p["offset"], "float32", generator)
    std = p["scale"] * torch.exp2(inputs.uniform(row_shape, -1.0, 1.0, "float32", generator))
    x = (inputs.randn(shape, "float32", generator) * std + mean).to(inputs.torch_dtype(dtype))
    x = inputs.layout(x, p.get("layout", "contiguous"))
    weight = bias = None
    if p["affine"] in ("both", "weight"):
        weight = inputs.randn(norm, dtype, generator, scale=0.5, offset=1.0)
    if p["affine"] in ("both", "bias"):
        bias = inputs.randn(norm, dtype, generator, scale=0.5)
    return {"input": x, "normalized_shape": list(norm), "weight": weight, "bias": bias,
            "eps": p.get("eps", 1e-05)}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); normalized_shape follows the trailing dims.
    p = workload.params
    shape = sizes.shape_near(rng, p["shape"])
    return {**p, "shape": shape, "normalized_shape": shape[len(shape) - len(p["normalized_shape"]):]}
