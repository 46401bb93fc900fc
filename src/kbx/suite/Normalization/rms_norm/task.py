"""RMS normalization over the trailing `normalized_shape` dimensions.

    ms = E[x^2]                                   (over the last len(normalized_shape) dims; no mean subtracted)
    y  = x / sqrt(ms + eps) * weight               (weight of shape normalized_shape, optional)

Mirrors `torch.nn.functional.rms_norm(input, normalized_shape, weight=None, eps=None)`. With `eps=None` PyTorch
uses the machine epsilon of the type it computes in: fp32 for fp32, bf16 and fp16 inputs alike, so
eps = torch.finfo(torch.float32).eps = 1.1920929e-07 (not bf16's 2^-7). The output has the input's shape and
dtype; bf16 inputs are computed in fp32 and rounded (PyTorch rounds the normalized value to bf16 before the
weight multiply, a difference of one bf16 rounding that the bf16 tolerance covers).

Inputs have per-row scales that vary fourfold, a nonzero per-row mean (so subtracting the mean, as layer norm
does, changes the result), outliers, and about 10% constant rows (every element equal), for which
y = c / sqrt(c^2 + eps) shows where eps enters. Workloads with a small scale (mean square ~1e-4 to 1e-6) make
the eps default and the placement of eps (inside vs outside the square root) visible; one workload passes a
large explicit eps. Row lengths are 100, 127, 129, 4097 and 20485 (longer than one block), with
normalized_shape of one or two trailing dims, weight present or absent, and transposed or strided
(non-contiguous) inputs.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "rms_norm",
    "category": "Normalization",
    "level": 1,
    "signature": "(input, normalized_shape, weight=None, eps=None)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["rms_norm", "layer_norm", "native_layer_norm", "group_norm", "batch_norm", "instance_norm",
                  "normalize", "norm", "vector_norm", "linalg_norm", "mean", "sum", "var", "std", "rsqrt",
                  "square"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"shape": [8, 100], "normalized_shape": [100], "weight": True, "scale": 1.0, "eps": None}},
        {"name": "smoke_2d_plain", "role": "smoke",
         "params": {"shape": [6, 5, 33], "normalized_shape": [5, 33], "weight": False, "scale": 2.0,
                    "eps": 1e-06}},
        {"name": "check_small_default_eps", "role": "check",
         "params": {"shape": [64, 1000], "normalized_shape": [1000], "weight": True, "scale": 0.01, "eps": None}},
        {"name": "check_tiny_explicit_eps", "role": "check",
         "params": {"shape": [40, 96], "normalized_shape": [96], "weight": False, "scale": 0.002,
                    "eps": 1e-06}},
        {"name": "check_large_eps", "role": "check",
         "params": {"shape": [40, 96], "normalized_shape": [96], "weight": True, "scale": 0.5, "eps": 0.1}},
        {"name": "check_127", "role": "check",
         "params": {"shape": [65, 127], "normalized_shape": [127], "weight": True, "scale": 1.0, "eps": None}},
        {"name": "check_129_plain", "role": "check",
         "params": {"shape": [33, 129], "normalized_shape": [129], "weight": False, "scale": 3.0, "eps": None}},
        {"name": "check_4097", "role": "check",
         "params": {"shape": [17, 4097], "normalized_shape": [4097], "weight": True, "scale": 0.01,
                    "eps": 1e-06}},
        {"name": "check_long_rows", "role": "check",
         "params": {"shape": [3, 20485], "normalized_shape": [20485], "weight": True, "scale": 2.0,
                    "eps": 1e-06}},
        {"name": "check_long_2d", "role": "check",
         "params": {"shape": [3, 5, 4097], "normalized_shape": [5, 4097], "weight": True, "scale": 1.0,
                    "eps": None}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "normalized_shape": [127], "weight": True, "scale": 1.0, "eps": None,
                    "layout": "transposed"}},
        {"name": "check_strided_2d", "role": "check",
         "params": {"shape": [4, 7, 65], "normalized_shape": [7, 65], "weight": False, "scale": 0.01,
                    "eps": None, "layout": "strided"}},
        {"name": "bench", "role": "bench",
         "params": {"shape": [65536, 8192], "normalized_shape": [8192], "weight": True, "scale": 1.0,
                    "eps": 1e-06}},
        {"name": "bench_long_rows", "role": "bench",
         "params": {"shape": [4096, 131072], "normalized_shape": [131072], "weight": True, "scale": 1.0,
                    "eps": None}},
    ],
}


def reference(input, normalized_shape, weight=None, eps=None):
    # PyTorch's default eps, spelled out: float32's epsilon for every dtype here (and for the float64 truth too)
    return F.rms_norm(input, normalized_shape, weight, torch.finfo(torch.float32).eps if eps is None else eps)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, norm = p["shape"], p["normalized_shape"]
    row_shape = shape[: len(shape) - len(norm)] + [1] * len(norm)  # one entry per normalized row
    # Per-row standard deviation in [scale/2, 2*scale] around a per-row mean in [-scale, scale].
    std = p["scale"] * torch.exp2(inputs.uniform(row_shape, -1.0, 1.0, "float32", generator))
    mean = inputs.uniform(row_shape, -p["scale"], p["scale"], "float32", generator)
    x = inputs.randn(shape, "float32", generator) * std + mean
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=8.0 * p["scale"])
    # ~10% constant rows: every element equals the row's mean.
    constant = inputs.uniform(row_shape, 0.0, 1.0, "float32", generator) < 0.1
    x = torch.where(constant, mean, x).to(inputs.torch_dtype(dtype))
    weight = inputs.randn(norm, dtype, generator, scale=0.5, offset=1.0) if p["weight"] else None
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "normalized_shape": list(norm),
            "weight": weight, "eps": p["eps"]}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); normalized_shape follows the trailing dims.
    p = workload.params
    shape = sizes.shape_near(rng, p["shape"])
    return {**p, "shape": shape, "normalized_shape": shape[len(shape) - len(p["normalized_shape"]):]}
