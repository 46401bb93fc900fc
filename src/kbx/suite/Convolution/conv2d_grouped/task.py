"""Grouped 2-D convolution (ResNeXt-style, groups > 1 but not depthwise): `torch.nn.functional.conv2d`.

    Cg = C_in / groups,  Og = C_out / groups,  g = o // Og          (the group of output channel o)
    out[n, o, y, x] = bias[o] + sum_{c < Cg, r < kH, s < kW}
                      weight[o, c, r, s] * input[n, g*Cg + c, y*sH - pH + r*dH, x*sW - pW + s*dW]
    OH = (H + 2*pH - dH*(kH - 1) - 1) // sH + 1       (likewise OW)

This is torch's conv2d, same signature `F.conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1,
groups=1)`, restricted to the workloads grouped convolutions see: many groups of a few channels each
(ResNeXt's 32 groups of 4-16 channels, RegNet's group widths), 1 < groups < C_in, with stride and dilation.
Input positions outside the image read as zero. `input` is (N, C_in, H, W) or unbatched (C_in, H, W), `weight`
is (C_out, C_in / groups, kH, kW), `bias` is (C_out,) or None; stride, padding and dilation are an int or a
(height, width) pair, padding may also be 'valid' or 'same'. The output has the input's dtype. For float32 the
products are true fp32 (the reference turns cuDNN's default TF32 off); float16 products are summed in fp32 and
rounded once. With so few channels per group this is closer to memory-bound than a dense convolution.

Workloads cover ResNeXt-like groups of 4 channels with bias, stride with dilation where Og != Cg (6 output per 4
input channels, so a group boundary falls inside any power-of-two channel tile), a rectangular kernel with per-axis
stride, padding and dilation, groups expanding channels (3 in, 8 out), two wide groups (Cg = 40, Og = 33, straddling
32) on a channels-last input, 32 groups of 2 channels on an unbatched input with dilated 'same' padding, and 'valid'
padding (none) with a rectangular kernel over 4 groups of 2 input and 3 output channels, and the first half of the
channels of a larger input (`check_channel_slice`, as after x.chunk(2, dim=1): unit last stride and dense planes,
yet a kernel that assumes samples C_in * H * W apart reads the wrong half from the second sample on). The weight of
`check_dilation_stride` is channels-last (as a model converted to channels_last holds it), so a kernel that
addresses the weight as a contiguous array fails there. Values: `input` is normal with a few outliers (+-8),
`weight` uniform in [-2, 2), `bias` normal, so an output's standard deviation is about 1.15 * sqrt(L), L = Cg * kH *
kW the reduction length.

Tolerance: float32 1e-5 * sqrt(L) + 1e-5 * |ref| (the default widened with L, room for a different fp32
summation order); float16 2e-4 * sqrt(L) + 2e-3 * |ref| (two fp16 ulps, as a different order or a fused bias can
flip the final rounding, plus 2e-4 of the outputs' standard deviation for outputs that cancel to nearly zero).
Measured: the solution uses at most 0.17 of the float32 tolerance and 0.34 of the float16 one (CPU interpreter,
seeds 0-1); the wrong candidates miss it on every element of the dilated workloads.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "conv2d_grouped",
    "category": "Convolution",
    "level": 1,
    "signature": "(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["conv1d", "conv2d", "conv3d", "convolution", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d", "cudnn_convolution", "mkldnn_convolution", "unfold", "fold", "im2col",
                  "matmul", "mm", "bmm", "einsum", "tensordot", "linear", "addmm", "baddbmm", "sum", "@"],
    "contract": {
        "kind": "allclose",
        "tolerance": {"float32": [1e-5, 1e-5], "float16": [2e-4, 2e-3]},
        "reduction_length": "L", "tensor_cores": True,
        "tf32": False,
    },
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"N": 1, "C_in": 8, "H": 9, "W": 10, "C_out": 8, "kernel": [3, 3], "padding": 1, "groups": 4,
                    "L": 18}},
        {"name": "check_resnext", "role": "check",
         "params": {"N": 2, "C_in": 32, "H": 9, "W": 11, "C_out": 32, "kernel": [3, 3], "padding": 1,
                    "groups": 8, "bias": True, "L": 36}},
        {"name": "check_dilation_stride", "role": "check",
         "params": {"N": 1, "C_in": 24, "H": 17, "W": 19, "C_out": 36, "kernel": [3, 3], "stride": 2,
                    "padding": 2, "dilation": 2, "groups": 6, "bias": True, "L": 36, "weight_layout": "channels_last"}},
        {"name": "check_rect_per_axis", "role": "check",
         "params": {"N": 1, "C_in": 12, "H": 13, "W": 15, "C_out": 18, "kernel": [3, 5], "stride": [2, 1],
                    "padding": [1, 2], "dilation": [1, 3], "groups": 3, "L": 60}},
        {"name": "check_expand", "role": "check",
         "params": {"N": 2, "C_in": 12, "H": 7, "W": 8, "C_out": 32, "kernel": [3, 3], "groups": 4, "bias": True,
                    "L": 27}},
        {"name": "check_wide_groups_channels_last", "role": "check",
         "params": {"N": 1, "C_in": 80, "H": 7, "W": 9, "C_out": 66, "kernel": [3, 3], "padding": 1, "groups": 2,
                    "layout": "channels_last", "L": 360}},
        {"name": "check_many_groups_same", "role": "check",
         "params": {"N": 0, "C_in": 64, "H": 8, "W": 9, "C_out": 64, "kernel": [3, 3], "padding": "same",
                    "dilation": 2, "groups": 32, "L": 18}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"N": 3, "C_in": 4, "H": 9, "W": 11, "C_out": 6, "kernel": [3, 3], "padding": 1, "groups": 2,
                    "layout": "channel_slice", "L": 18}},
        {"name": "check_valid", "role": "check",
         "params": {"N": 1, "C_in": 8, "H": 9, "W": 8, "C_out": 12, "kernel": [3, 2], "padding": "valid",
                    "groups": 4, "L": 12}},
        {"name": "bench_resnext_3x3", "role": "bench",
         "params": {"N": 256, "C_in": 256, "H": 56, "W": 56, "C_out": 256, "kernel": [3, 3], "padding": 1,
                    "groups": 32, "bias": True, "L": 72}},
        {"name": "bench_resnext_stride2", "role": "bench",
         "params": {"N": 256, "C_in": 512, "H": 56, "W": 56, "C_out": 512, "kernel": [3, 3], "stride": 2,
                    "padding": 1, "groups": 32, "L": 144}},
    ],
}


def reference(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    # True fp32 for float32: PyTorch lets cuDNN use TF32 for convolutions by default.
    flags = torch.backends.cudnn
    saved = flags.allow_tf32
    flags.allow_tf32 = False
    try:
        return F.conv2d(input, weight, bias, stride, padding, dilation, groups)
    finally:
        flags.allow_tf32 = saved


def _arg(value):
    # JSON lists become tuples, the form torch documents for a (height, width) pair.
    return tuple(value) if isinstance(value, list) else value


def make_inputs(workload, dtype, generator):
    p = workload.params
    groups = p["groups"]
    kh, kw = p["kernel"]
    shape = [p["C_in"], p["H"], p["W"]] if p["N"] == 0 else [p["N"], p["C_in"], p["H"], p["W"]]
    x = inputs.randn(shape, dtype, generator)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=8.0)
    layout = p.get("layout", "contiguous")
    x = x.contiguous(memory_format=torch.channels_last) if layout == "channels_last" else inputs.layout(x, layout)
    w = inputs.uniform([p["C_out"], p["C_in"] // groups, kh, kw], -2.0, 2.0, dtype, generator)
    if p.get("weight_layout") == "channels_last":
        w = w.contiguous(memory_format=torch.channels_last)
    b = inputs.randn([p["C_out"]], dtype, generator) if p.get("bias", False) else None
    return {
        "input": x, "weight": w, "bias": b,
        "stride": _arg(p.get("stride", 1)), "padding": _arg(p.get("padding", 0)),
        "dilation": _arg(p.get("dilation", 1)), "groups": groups,
    }


def perturb(workload, rng):
    # Batch, image and per-group channel sizes move (odd, never more multiply-adds or elements); the kernel,
    # stride, padding, dilation, groups, bias and layout stay. The image stays at least one dilated kernel wide.
    p = workload.params
    g = p["groups"]
    kh, kw = p["kernel"]
    dh, dw = (p.get("dilation", 1),) * 2 if isinstance(p.get("dilation", 1), int) else p["dilation"]
    span = {1: dh * (kh - 1) + 1, 2: dw * (kw - 1) + 1}

    def cost(d):
        n, h, w, cg, og = d
        return max(n, 1) * h * w * cg * og * g * kh * kw, max(n, 1) * (h * w * (cg + og) * g) + og * g * cg * kh * kw

    n, h, w, cg, og = sizes.shape_near(
        rng, [p["N"], p["H"], p["W"], p["C_in"] // g, p["C_out"] // g], at_least=span, keep=[0] if p["N"] == 0 else [],
        cost=cost,
    )
    return {**p, "N": n, "H": h, "W": w, "C_in": cg * g, "C_out": og * g, "L": cg * kh * kw}
