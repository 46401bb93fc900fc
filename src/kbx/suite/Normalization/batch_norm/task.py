"""Batch normalization in inference mode: normalize each channel with its running statistics.

    x: (N, C, *spatial) or (N, C); the channel dim is 1
    y[n, c, ...] = (x[n, c, ...] - running_mean[c]) / sqrt(running_var[c] + eps) * weight[c] + bias[c]

Mirrors `torch.nn.functional.batch_norm(input, running_mean, running_var, weight=None, bias=None,
training=False, momentum=0.1, eps=1e-05)`. Every workload uses training=False (inference): the running
statistics are read, never updated, and `momentum` has no effect; candidates need not support training=True.
weight and bias are optional. The output has the input's shape and dtype; fp16 and bf16 inputs are computed in
fp32 and rounded once, as PyTorch does. The statistics and affine parameters come either in the input's dtype or
in fp32 (the mixed-precision case, as under autocast), so a kernel must read them in their own dtype.

The normalized dim is the channel dim (1), not the last one: channels have means between -5 and 5 and running
variances between 1e-5 and 4 (some far below eps, so where eps enters, inside or outside the square root,
shows), and a kernel that indexes the parameters by the last dim fails. Workloads cover 5-D, 4-D, 3-D and 2-D
inputs (a kernel that spells out H * W for 4-D inputs fails the 5-D one), odd channel and spatial sizes, a large
eps, weight and bias present, bias alone (F.batch_norm accepts a bias without a weight), weight alone (a kernel
that keys the affine step on the bias drops it) and neither, channels-last (NHWC memory), transposed and strided
inputs, and the first half of the channels of a larger tensor (x.chunk(2, dim=1): unit last stride, yet a kernel
that assumes samples C * S apart reads the wrong half).
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "batch_norm",
    "category": "Normalization",
    "level": 1,
    "signature": "(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, "
                 "eps=1e-05)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["batch_norm", "native_batch_norm", "cudnn_batch_norm", "instance_norm", "layer_norm",
                  "group_norm", "rms_norm", "normalize", "rsqrt", "sqrt", "addcmul", "addcdiv", "var", "std"],
    "contract": {"kind": "allclose"},
    "defaults_kept": {
        "training": "an inference task: training=True normalises with the batch statistics and updates "
                    "running_mean and running_var in place, a different operation and an input mutation",
        "momentum": "only used with training=True, to update the running statistics",
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [2, 3, 6, 5], "affine": True, "params": "input"}},
        {"name": "smoke_2d_fp32_params", "role": "smoke",
         "params": {"shape": [8, 20], "affine": True, "params": "float32"}},
        {"name": "check_5d", "role": "check",
         "params": {"shape": [2, 3, 3, 4, 5], "affine": True, "params": "float32"}},
        {"name": "check_large_eps", "role": "check",
         "params": {"shape": [2, 6, 9, 11], "affine": True, "params": "float32", "eps": 0.01}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"shape": [3, 4, 5, 7], "affine": True, "params": "float32", "layout": "channel_slice"}},
        {"name": "check_bias_only", "role": "check",
         "params": {"shape": [3, 6, 7, 5], "affine": "bias", "params": "float32"}},
        {"name": "check_weight_only", "role": "check",
         "params": {"shape": [3, 5, 6, 7], "affine": "weight", "params": "float32"}},
        {"name": "check_odd_spatial", "role": "check",
         "params": {"shape": [2, 5, 33, 31], "affine": True, "params": "float32"}},
        {"name": "check_3d_plain", "role": "check",
         "params": {"shape": [3, 7, 129], "affine": False, "params": "input"}},
        {"name": "check_2d_wide", "role": "check",
         "params": {"shape": [33, 129], "affine": True, "params": "input"}},
        {"name": "check_tiny_spatial", "role": "check",
         "params": {"shape": [5, 67, 3, 3], "affine": True, "params": "float32"}},
        {"name": "check_channels_last", "role": "check",
         "params": {"shape": [2, 67, 9, 7], "affine": True, "params": "float32", "layout": "channels_last"}},
        {"name": "check_channels_last_plain", "role": "check",
         "params": {"shape": [3, 130, 5, 4], "affine": False, "params": "input", "layout": "channels_last"}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [2, 4, 31, 33], "affine": True, "params": "input", "layout": "transposed"}},
        {"name": "check_strided", "role": "check",
         "params": {"shape": [3, 5, 65], "affine": True, "params": "float32", "layout": "strided"}},
        {"name": "bench", "role": "bench",
         "params": {"shape": [512, 512, 64, 64], "affine": True, "params": "float32"}},
        {"name": "bench_channels_last", "role": "bench",
         "params": {"shape": [256, 256, 128, 128], "affine": True, "params": "float32",
                    "layout": "channels_last"}},
    ],
}


def reference(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    # PyTorch's CPU kernel for a transposed fp16 input lands up to ~2 ulp from the fp64 result (its contiguous
    # and channels-last kernels round once); the values do not depend on the layout, so the reference reads a
    # contiguous copy, except channels-last, which it reads in place.
    if not input.is_contiguous(memory_format=torch.channels_last):
        input = input.contiguous()
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    c = shape[1]
    pdt = dtype if p["params"] == "input" else "float32"
    mean = inputs.uniform([c], -5.0, 5.0, pdt, generator)
    # Running variances log-uniform in [1e-5, 4]: about a fifth of the channels are within 10x of eps = 1e-5.
    var = torch.pow(10.0, inputs.uniform([c], -5.0, 0.6, "float32", generator)).to(inputs.torch_dtype(pdt))
    channel = [1, c] + [1] * (len(shape) - 2)
    std = var.float().sqrt().view(channel)
    x = inputs.randn(shape, "float32", generator) * std + mean.float().view(channel)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=20.0).to(inputs.torch_dtype(dtype))
    layout = p.get("layout", "contiguous")
    if layout == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    else:
        x = inputs.layout(x, layout)
    weight = bias = None  # affine: True (weight and bias), "weight" or "bias" (that one alone) or False (neither)
    if p["affine"] in (True, "weight"):
        weight = inputs.randn([c], pdt, generator, scale=0.5, offset=1.0)
    if p["affine"] in (True, "bias"):
        bias = inputs.randn([c], pdt, generator, scale=0.5)
    return {"input": x, "running_mean": mean, "running_var": var, "weight": weight, "bias": bias,
            "training": False, "momentum": 0.1, "eps": p.get("eps", 1e-05)}


def perturb(workload, rng):
    # Odd batch and spatial sizes near the published ones (never more elements); channels, parameter dtype,
    # eps and layout stay.
    p = workload.params
    return {**p, "shape": sizes.shape_near(rng, p["shape"], keep=[1])}
