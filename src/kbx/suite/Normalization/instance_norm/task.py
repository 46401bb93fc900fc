"""Instance normalization: every (sample, channel) plane normalized over its spatial dims with its own statistics.

    x: (N, C, *spatial)
    mean[n, c] = E[x[n, c, ...]],  var[n, c] = E[(x[n, c, ...] - mean[n, c])^2]          (biased variance)
    y[n, c, ...] = (x[n, c, ...] - mean[n, c]) / sqrt(var[n, c] + eps) * weight[c] + bias[c]

Mirrors `torch.nn.functional.instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
use_input_stats=True, momentum=0.1, eps=1e-05)` in its usual mode: statistics from the input itself
(use_input_stats=True) and no running statistics (running_mean = running_var = None, so momentum has no
effect). Every workload passes exactly that; candidates need not support running statistics. weight and bias
are per channel, each optional. The output has the input's shape and dtype; bf16 inputs are computed in fp32 and
rounded once (the reference upcasts: see `reference`). The statistics run over the trailing spatial dims of
each plane, not over the channel dim or the batch.

Inputs carry a per-plane mean between 5 and 100 next to a unit-scale spread (so E[x^2] - E[x]^2 cancels in
fp32) and per-plane scales that vary fourfold, so statistics pooled over channels (layer norm) or over the
batch (batch norm) are visibly wrong. Workloads cover 4-D and 3-D inputs, weight and bias present, bias alone
(F.instance_norm accepts a bias without a weight), weight alone (a kernel that keys the affine step on the bias
drops it) and neither, small planes (3x3: the unbiased variance is 12% off), planes larger than one tile, constant
planes with a large eps (output exactly bias), a large eps (0.1) on planes with variances of 0.25 to 4 (where eps
enters, inside or outside the square root, or a hard-coded 1e-5, then moves the output by percents; at eps = 1e-5
the difference is ~1e-5), channels-last (NHWC memory), transposed and strided inputs, and the first half of the
channels of a larger tensor (x.chunk(2, dim=1): unit last stride, yet a kernel that assumes samples C * S apart
reads the wrong half).
The fp32 tolerance is 2e-4 for the reason layer_norm and group_norm give: with |mean| / std up to 100 an fp32
mean is off by a few ulp(mean), moving outputs by ~1e-5 in any implementation (PyTorch's own CPU result is
~1e-5 from the fp64 one); the solution stays well within it and the wrong candidates miss by far more.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "instance_norm",
    "category": "Normalization",
    "level": 1,
    "signature": "(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True, "
                 "momentum=0.1, eps=1e-05)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["instance_norm", "batch_norm", "native_batch_norm", "group_norm", "native_group_norm",
                  "layer_norm", "native_layer_norm", "rms_norm", "normalize", "mean", "var", "std", "var_mean",
                  "std_mean", "sum", "nansum", "nanmean"],
    "contract": {"kind": "allclose", "tolerance": {"float32": [2e-4, 2e-4]}},
    "defaults_kept": {
        "running_mean": "given running statistics are updated in place during the call (an input mutation); "
                        "the task is normalisation by each instance's own statistics",
        "running_var": "as running_mean",
        "use_input_stats": "False normalises with the running statistics: batch_norm's inference, its own task",
        "momentum": "only updates the running statistics, which the task does not pass",
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [2, 3, 6, 5], "affine": True, "offset": 100.0}},
        {"name": "smoke_3d_plain", "role": "smoke", "params": {"shape": [3, 4, 50], "affine": False, "offset": 10.0}},
        {"name": "check_large_eps", "role": "check",
         "params": {"shape": [2, 5, 6, 7], "affine": True, "offset": 5.0, "eps": 0.1}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"shape": [3, 4, 5, 7], "affine": True, "offset": 20.0, "layout": "channel_slice"}},
        {"name": "check_bias_only", "role": "check",
         "params": {"shape": [2, 5, 7, 9], "affine": "bias", "offset": 50.0}},
        {"name": "check_weight_only", "role": "check",
         "params": {"shape": [3, 5, 6, 7], "affine": "weight", "offset": 50.0}},
        {"name": "check_odd_spatial", "role": "check",
         "params": {"shape": [2, 5, 33, 31], "affine": True, "offset": 100.0}},
        {"name": "check_small_planes", "role": "check",
         "params": {"shape": [4, 67, 3, 3], "affine": True, "offset": 50.0}},
        {"name": "check_big_planes", "role": "check",
         "params": {"shape": [2, 2, 129, 131], "affine": True, "offset": 100.0}},
        {"name": "check_3d_long", "role": "check",
         "params": {"shape": [2, 3, 4097], "affine": False, "offset": 20.0}},
        {"name": "check_constant_large_eps", "role": "check",
         "params": {"shape": [3, 6, 9, 7], "affine": True, "offset": 5.0, "eps": 0.1, "constant": True}},
        {"name": "check_channels_last", "role": "check",
         "params": {"shape": [2, 67, 13, 11], "affine": True, "offset": 100.0, "layout": "channels_last"}},
        {"name": "check_channels_last_plain", "role": "check",
         "params": {"shape": [3, 130, 5, 7], "affine": False, "offset": 20.0, "layout": "channels_last"}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [2, 3, 31, 33], "affine": True, "offset": 100.0, "layout": "transposed"}},
        {"name": "check_strided_3d", "role": "check",
         "params": {"shape": [3, 4, 129], "affine": True, "offset": 50.0, "layout": "strided"}},
        {"name": "bench", "role": "bench",
         "params": {"shape": [128, 256, 128, 128], "affine": True, "offset": 10.0}},
        {"name": "bench_channels_last", "role": "bench",
         "params": {"shape": [128, 512, 64, 64], "affine": True, "offset": 10.0, "layout": "channels_last"}},
    ],
}


def reference(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
              momentum=0.1, eps=1e-05):
    # Computed in fp32 and rounded once: PyTorch's CPU kernel for bf16 inputs loses up to ~0.7 (absolute, on
    # unit-scale outputs) here against the fp64 result, because it goes through batch norm with bf16 statistics
    # (a mean near 100 is then off by up to ulp(100) / 2 = 0.25); in fp32 it is ~1e-5 from fp64.
    def up(t):
        return t.float() if t is not None else None
    y = F.instance_norm(up(input), up(running_mean), up(running_var), up(weight), up(bias), use_input_stats,
                        momentum, eps)
    return y.to(input.dtype)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    n, c = shape[0], shape[1]
    plane = [n, c] + [1] * (len(shape) - 2)  # one value per (sample, channel)
    mean = inputs.uniform(plane, 0.5 * p["offset"], p["offset"], "float32", generator)
    std = torch.exp2(inputs.uniform(plane, -1.0, 1.0, "float32", generator))
    if p.get("constant"):
        x = mean.expand(shape).contiguous()  # var = 0: y = bias exactly (eps keeps it finite)
    else:
        x = inputs.randn(shape, "float32", generator) * std + mean
    x = x.to(inputs.torch_dtype(dtype))
    layout = p.get("layout", "contiguous")
    if layout == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    else:
        x = inputs.layout(x, layout)
    weight = bias = None  # affine: True (weight and bias), "weight" or "bias" (that one alone) or False (neither)
    if p["affine"] in (True, "weight"):
        weight = inputs.randn([c], dtype, generator, scale=0.5, offset=1.0)
    if p["affine"] in (True, "bias"):
        bias = inputs.randn([c], dtype, generator, scale=0.5)
    return {"input": x, "running_mean": None, "running_var": None, "weight": weight, "bias": bias,
            "use_input_stats": True, "momentum": 0.1, "eps": p.get("eps", 1e-05)}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); affine, eps and layout stay.
    p = workload.params
    return {**p, "shape": sizes.shape_near(rng, p["shape"])}
