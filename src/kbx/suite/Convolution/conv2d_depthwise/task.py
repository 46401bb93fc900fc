"""Depthwise 2-D convolution: `F.conv2d(input, weight, bias, stride, padding, dilation, groups=C_in)`.

    m = C_out / C_in (the channel multiplier),   output channel o reads input channel o // m only
    out[n, o, y, x] = bias[o] + sum_{r < kH, s < kW} weight[o, 0, r, s]
                                  * input[n, o // m, y*sH - pH + r*dH, x*sW - pW + s*dW]
    OH = (H + 2*pH - dH*(kH - 1) - 1) // sH + 1       (likewise OW)

Input positions outside the image read as zero. This is `torch.nn.functional.conv2d` with groups equal to the
number of input channels (MobileNet/EfficientNet's depthwise layers); the groups argument is implied, so the
signature is conv2d's without it. `input` is (N, C_in, H, W), `weight` is (C_in * m, 1, kH, kW), `bias` is
(C_in * m,) or None; stride, padding and dilation are an int or a (height, width) pair. The output has the
input's dtype (float16 or bfloat16); each output sums only kH * kW products, in fp32, rounded once. With so
little arithmetic per byte this is a memory-bound operation, unlike a dense convolution.

Workloads cover stride with padding, a channel multiplier of 2 with a rectangular kernel and per-axis padding,
dilation, a channels-last input, the first half of the channels of a larger input (`check_channel_slice`, as after
x.chunk(2, dim=1): unit last stride and dense planes, yet a kernel that assumes samples C * H * W apart reads the
wrong half from the second sample on), a 7 x 7 kernel with a per-axis stride, and widths straddling 64. The weight of
`check_multiplier_rect` is transposed (kH and kW swapped in memory), so a kernel that addresses the weight as a
contiguous array fails there. Values: `input` is normal with a few outliers (+-8), `weight` uniform in [-2, 2),
`bias` normal, so an output's standard deviation is about 1.15 * sqrt(R), R = kH * kW.

Tolerance: float16 2e-4 * sqrt(R) + 2e-3 * |ref|, bfloat16 4e-3 * sqrt(R) + 1.6e-2 * |ref|: two ulps of the
output dtype (a different summation order or a fused bias can flip the final rounding; the interpreter truncates
fp32 -> bf16 casts) plus a small absolute part for outputs that cancel to nearly zero. Measured: the solution
uses at most 0.24 of the float16 tolerance and matches the CPU reference exactly in bfloat16 (CPU interpreter,
seeds 0-1).
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "conv2d_depthwise",
    "category": "Convolution",
    "level": 1,
    "signature": "(input, weight, bias=None, stride=1, padding=0, dilation=1)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["conv1d", "conv2d", "conv3d", "convolution", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d", "cudnn_convolution", "mkldnn_convolution", "depthwise_conv2d",
                  "unfold", "fold", "im2col", "matmul", "mm", "bmm", "einsum", "tensordot", "sum", "@"],
    "contract": {
        "kind": "allclose",
        "tolerance": {"float16": [2e-4, 2e-3], "bfloat16": [4e-3, 1.6e-2]},
        "reduction_length": "R",
    },
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"N": 1, "C": 3, "H": 12, "W": 12, "mult": 1, "kernel": [3, 3], "padding": 1, "R": 9}},
        {"name": "check_stride_pad", "role": "check",
         "params": {"N": 2, "C": 3, "H": 33, "W": 35, "mult": 1, "kernel": [3, 3], "stride": 2, "padding": 1,
                    "bias": True, "R": 9}},
        {"name": "check_multiplier_rect", "role": "check",
         "params": {"N": 1, "C": 2, "H": 17, "W": 67, "mult": 2, "kernel": [5, 3], "padding": [2, 1],
                    "bias": True, "R": 15, "weight_layout": "transposed"}},
        {"name": "check_dilation", "role": "check",
         "params": {"N": 1, "C": 4, "H": 20, "W": 21, "mult": 1, "kernel": [3, 3], "padding": 2, "dilation": 2,
                    "R": 9}},
        {"name": "check_channels_last", "role": "check",
         "params": {"N": 1, "C": 5, "H": 15, "W": 16, "mult": 1, "kernel": [3, 3], "padding": 1, "bias": True,
                    "layout": "channels_last", "R": 9}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"N": 3, "C": 2, "H": 9, "W": 11, "mult": 1, "kernel": [3, 3], "padding": 1,
                    "layout": "channel_slice", "R": 9}},
        {"name": "check_big_kernel", "role": "check",
         "params": {"N": 1, "C": 2, "H": 29, "W": 33, "mult": 1, "kernel": [7, 7], "stride": [1, 2],
                    "padding": 3, "R": 49}},
        {"name": "bench_3x3", "role": "bench",
         "params": {"N": 128, "C": 384, "H": 112, "W": 112, "mult": 1, "kernel": [3, 3], "padding": 1,
                    "bias": True, "R": 9}},
        {"name": "bench_5x5_stride2", "role": "bench",
         "params": {"N": 128, "C": 256, "H": 112, "W": 112, "mult": 1, "kernel": [5, 5], "stride": 2,
                    "padding": 2, "R": 25}},
        {"name": "bench_over_2_31", "role": "bench", "min_gpu_gib": 139, "timed": False,
         "params": {"N": 64, "C": 128, "H": 513, "W": 513, "mult": 1, "kernel": [3, 3], "padding": 1, "bias": True,
                    "R": 9}},
    ],
}


def reference(input, weight, bias=None, stride=1, padding=0, dilation=1):
    return F.conv2d(input, weight, bias, stride, padding, dilation, groups=input.shape[-3])


def _arg(value):
    return tuple(value) if isinstance(value, list) else value


def make_inputs(workload, dtype, generator):
    p = workload.params
    kh, kw = p["kernel"]
    C_out = p["C"] * p["mult"]
    x = inputs.randn([p["N"], p["C"], p["H"], p["W"]], dtype, generator)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=8.0)
    layout = p.get("layout", "contiguous")
    x = x.contiguous(memory_format=torch.channels_last) if layout == "channels_last" else inputs.layout(x, layout)
    w = inputs.uniform([C_out, 1, kh, kw], -2.0, 2.0, dtype, generator)
    w = inputs.layout(w, p.get("weight_layout", "contiguous"))
    b = inputs.randn([C_out], dtype, generator) if p.get("bias", False) else None
    return {
        "input": x, "weight": w, "bias": b,
        "stride": _arg(p.get("stride", 1)), "padding": _arg(p.get("padding", 0)),
        "dilation": _arg(p.get("dilation", 1)),
    }


def perturb(workload, rng):
    # Batch, channels and image sizes move (odd, never more elements); kernel, multiplier, stride, padding,
    # dilation, bias and layout stay. The image stays at least one dilated kernel high and wide.
    p = workload.params
    kh, kw = p["kernel"]
    d = p.get("dilation", 1)
    dh, dw = (d, d) if isinstance(d, int) else d
    n, c, h, w = sizes.shape_near(rng, [p["N"], p["C"], p["H"], p["W"]],
                                  at_least={2: dh * (kh - 1) + 1, 3: dw * (kw - 1) + 1})
    return {**p, "N": n, "C": c, "H": h, "W": w}
