"""Group normalization: channels split into groups, each (sample, group) normalized over its channels and space.

    x: (N, C, *spatial), G = num_groups divides C, group g holds channels g*C/G ... (g+1)*C/G - 1 (contiguous)
    mean[n, g] = E[x[n, group g, ...]],  var[n, g] = E[(x[n, group g, ...] - mean)^2]     (biased variance)
    y[n, c, ...] = (x[n, c, ...] - mean[n, g(c)]) / sqrt(var[n, g(c)] + eps) * weight[c] + bias[c]

Mirrors `torch.nn.functional.group_norm(input, num_groups, weight=None, bias=None, eps=1e-05)`; weight and
bias are per channel, each optional. The output has the input's shape and dtype; fp16 inputs are computed in
fp32 and rounded once, as PyTorch does. The normalized dims are not the last ones: the statistics run over the
channel dim (1) and every spatial dim together, one group at a time.

Inputs carry a per-(sample, group) mean between 5 and 100 next to a unit-scale spread, so E[x^2] - E[x]^2 cancels in
fp32; within a group each channel has its own mean and scale (statistics per channel, as instance norm takes, or
channels assigned to groups round-robin give visibly different results). Workloads cover 4-D, 3-D and 2-D (N, C)
inputs, weight and bias present, bias alone (F.group_norm accepts a bias without a weight), weight alone (a kernel
that keys the affine step on the bias drops it) and neither, one group (= layer norm over C, H, W), one channel per
group (= instance norm), group sizes both inside one tile and far larger than one, a large eps with constant groups
(every element equal, so the output is exactly bias), a large eps (0.1) on groups with variances of ~1 to 3 (where
eps enters, inside or outside the square root, or a hard-coded 1e-5, then moves the output by percents; at eps =
1e-5 by ~1e-5), channels-last (NHWC memory), transposed and strided inputs, and the first half of the channels of a
larger tensor (x.chunk(2, dim=1): unit last stride, yet a kernel that assumes samples C * S apart reads the wrong
half).
The fp32 tolerance is 2e-4: with |mean| / std up to 100 an fp32 mean is off by a few ulp(mean), which moves the
outputs by ~1e-5 in any implementation (PyTorch's own CPU result is ~1e-5 from the fp64 result); the solution
stays within ~3e-5 of the reference, and the one-pass variance misses by more than 1e-3.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "group_norm",
    "category": "Normalization",
    "level": 1,
    "signature": "(input, num_groups, weight=None, bias=None, eps=1e-05)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["group_norm", "native_group_norm", "layer_norm", "native_layer_norm", "batch_norm",
                  "instance_norm", "rms_norm", "normalize", "mean", "var", "std", "var_mean", "std_mean", "sum",
                  "nansum", "nanmean"],
    "contract": {"kind": "allclose", "tolerance": {"float32": [2e-4, 2e-4]}},
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"shape": [2, 8, 6, 5], "num_groups": 4, "affine": True, "offset": 100.0}},
        {"name": "smoke_3d_plain", "role": "smoke",
         "params": {"shape": [3, 6, 50], "num_groups": 2, "affine": False, "offset": 10.0}},
        {"name": "check_bias_only", "role": "check",
         "params": {"shape": [3, 10, 7, 9], "num_groups": 5, "affine": "bias", "offset": 20.0}},
        {"name": "check_weight_only", "role": "check",
         "params": {"shape": [3, 6, 5, 7], "num_groups": 3, "affine": "weight", "offset": 20.0}},
        {"name": "check_odd_spatial", "role": "check",
         "params": {"shape": [2, 12, 33, 31], "num_groups": 4, "affine": True, "offset": 100.0}},
        {"name": "check_one_group", "role": "check",
         "params": {"shape": [3, 5, 17, 19], "num_groups": 1, "affine": True, "offset": 50.0}},
        {"name": "check_instance_like", "role": "check",
         "params": {"shape": [2, 7, 13, 11], "num_groups": 7, "affine": True, "offset": 50.0}},
        {"name": "check_big_group", "role": "check",
         "params": {"shape": [2, 4, 65, 129], "num_groups": 2, "affine": True, "offset": 100.0}},
        {"name": "check_2d_input", "role": "check",
         "params": {"shape": [7, 96], "num_groups": 8, "affine": True, "offset": 5.0}},
        {"name": "check_constant_large_eps", "role": "check",
         "params": {"shape": [4, 6, 9, 7], "num_groups": 3, "affine": True, "offset": 5.0, "eps": 0.1,
                    "constant": True}},
        {"name": "check_large_eps", "role": "check",
         "params": {"shape": [2, 6, 5, 7], "num_groups": 3, "affine": True, "offset": 5.0, "eps": 0.1}},
        {"name": "check_channels_last", "role": "check",
         "params": {"shape": [2, 24, 17, 15], "num_groups": 6, "affine": True, "offset": 100.0,
                    "layout": "channels_last"}},
        {"name": "check_channels_last_plain", "role": "check",
         "params": {"shape": [3, 66, 9, 7], "num_groups": 3, "affine": False, "offset": 20.0,
                    "layout": "channels_last"}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [2, 6, 31, 33], "num_groups": 3, "affine": True, "offset": 100.0,
                    "layout": "transposed"}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"shape": [3, 6, 5, 7], "num_groups": 2, "affine": True, "offset": 20.0,
                    "layout": "channel_slice"}},
        {"name": "check_strided_3d", "role": "check",
         "params": {"shape": [3, 8, 129], "num_groups": 4, "affine": False, "offset": 50.0, "layout": "strided"}},
        {"name": "bench", "role": "bench",
         "params": {"shape": [128, 512, 64, 64], "num_groups": 32, "affine": True, "offset": 10.0}},
        {"name": "bench_channels_last", "role": "bench",
         "params": {"shape": [64, 256, 128, 128], "num_groups": 32, "affine": True, "offset": 10.0,
                    "layout": "channels_last"}},
    ],
}


def reference(input, num_groups, weight=None, bias=None, eps=1e-05):
    # PyTorch's CPU kernel for channels-last inputs loses ~6e-3 in fp32 at |mean| / std ~ 100 (its NCHW kernel
    # is ~1e-5 from fp64); the values do not depend on the layout, so the reference always reads NCHW.
    return F.group_norm(input.contiguous(), num_groups, weight, bias, eps)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, groups = p["shape"], p["num_groups"]
    n, c = shape[0], shape[1]
    spread = [n, c] + [1] * (len(shape) - 2)  # one value per (sample, channel)
    # A group mean in [offset/2, offset] plus a per-channel shift, and a per-channel scale in [1/2, 2].
    group_mean = inputs.uniform([n, groups, 1], 0.5 * p["offset"], p["offset"], "float32", generator)
    mean = group_mean.expand(n, groups, c // groups).reshape(spread)
    mean = mean + inputs.uniform(spread, -2.0, 2.0, "float32", generator)
    std = torch.exp2(inputs.uniform(spread, -1.0, 1.0, "float32", generator))
    if p.get("constant"):
        # Every element of a group equal: var = 0, so y = bias exactly (and eps keeps it finite).
        x = group_mean.expand(n, groups, c // groups).reshape(spread).expand(shape).contiguous()
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
    return {"input": x, "num_groups": groups, "weight": weight, "bias": bias, "eps": p.get("eps", 1e-05)}


def perturb(workload, rng):
    # Odd batch and spatial sizes near the published ones (never more elements); channels and groups stay.
    p = workload.params
    return {**p, "shape": sizes.shape_near(rng, p["shape"], keep=[1])}
