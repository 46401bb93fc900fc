"""2-D transposed convolution ("deconvolution") with fp32 accumulation: `F.conv_transpose2d`.

Each input pixel scatters a weighted copy of the kernel into the output, placed `stride` apart:

    Cg = C_in / groups,  Og = C_out / groups
    out[n, g*Og + o, y, x] = bias[g*Og + o] + sum over c < Cg and taps (r, s) with
                              y = iy*sH - pH + r*dH  and  x = ix*sW - pW + s*dW  (0 <= iy < H, 0 <= ix < W)
                              of input[n, g*Cg + c, iy, ix] * weight[g*Cg + c, o, r, s]
    OH = (H - 1)*sH - 2*pH + dH*(kH - 1) + output_padding_h + 1        (likewise OW)

It is the gradient of conv2d with respect to its input. Mirrors `F.conv_transpose2d(input, weight, bias=None,
stride=1, padding=0, output_padding=0, groups=1, dilation=1)`: `input` is (N, C_in, H, W) or unbatched
(C_in, H, W), `weight` is (C_in, C_out / groups, kH, kW) (input channels first, unlike conv2d), `bias` is (C_out,)
or None; stride, padding, output_padding and dilation are an int or a (height, width) pair. `padding` removes
rows and columns from both borders of the full output; `output_padding` adds them back at the bottom/right only
(it resolves which of the `stride` possible sizes is meant). The output has the input's dtype; float32 products
are true fp32 (the reference turns cuDNN's default TF32 off), float16 products are summed in fp32 and rounded
once (as cuDNN does; on the CPU, where PyTorch's half kernel sums in half, the reference computes in fp32).

Workloads cover stride with padding and output_padding (per axis, a rectangular kernel), dilation sharing a factor
with the stride (some output phases get no tap at all, only the bias), groups on an unbatched input, a stride larger
than the kernel (gaps of bias-only pixels) with 33 output channels, and a deep channels-last input (C_in = 67). The
weight of `check_stride_pad_outpad` is channels-last (as a model converted to channels_last holds it), so a kernel
that addresses the weight as a contiguous array fails there. Values: `input` normal with a few outliers (+-8),
`weight` uniform in [-2, 2), `bias` normal. An output sums at most R = C_in / groups * ceil(kH / sH) * ceil(kW / sW)
products (for dilation 1), so its standard deviation is about 1.15 * sqrt(R).

Tolerance: float32 1e-5 * sqrt(R) + 1e-5 * |ref| (the default widened with R, room for a different fp32
summation order); float16 2e-4 * sqrt(R) + 2e-3 * |ref| (two fp16 ulps, as a different order or a fused bias can
flip the final rounding, plus 2e-4 of the outputs' standard deviation for outputs that cancel to nearly zero).
Measured: the solution uses at most 0.08 of the float32 tolerance and 0.35 of the float16 one (CPU interpreter,
seeds 0-1).
"""

import math

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "conv_transpose2d",
    "category": "Convolution",
    "level": 1,
    "signature": "(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["conv1d", "conv2d", "conv3d", "convolution", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d", "cudnn_convolution", "cudnn_convolution_transpose", "mkldnn_convolution",
                  "conv2d_input", "unfold", "fold", "col2im", "im2col", "matmul", "mm", "bmm", "einsum",
                  "tensordot", "linear", "addmm", "baddbmm", "sum", "index_add", "scatter_add", "@"],
    "contract": {
        "kind": "allclose",
        "tolerance": {"float32": [1e-5, 1e-5], "float16": [2e-4, 2e-3]},
        "reduction_length": "R", "tensor_cores": True,
        "tf32": False,
    },
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"N": 1, "C_in": 4, "H": 6, "W": 6, "C_out": 6, "kernel": [3, 3], "stride": 2, "padding": 1,
                    "output_padding": 1, "R": 16}},
        {"name": "check_stride_pad_outpad", "role": "check",
         "params": {"N": 2, "C_in": 5, "H": 9, "W": 11, "C_out": 7, "kernel": [3, 4], "stride": [2, 3],
                    "padding": [1, 2], "output_padding": [1, 2], "bias": True, "R": 20,
                    "weight_layout": "channels_last"}},
        {"name": "check_dilation", "role": "check",
         "params": {"N": 1, "C_in": 6, "H": 8, "W": 7, "C_out": 9, "kernel": [3, 3], "stride": 2, "padding": 1,
                    "output_padding": 1, "dilation": 2, "bias": True, "R": 24}},
        {"name": "check_groups_unbatched", "role": "check",
         "params": {"N": 0, "C_in": 8, "H": 7, "W": 9, "C_out": 6, "kernel": [3, 3], "padding": 1, "groups": 2,
                    "bias": True, "R": 36}},
        {"name": "check_stride_gt_kernel", "role": "check",
         "params": {"N": 2, "C_in": 3, "H": 5, "W": 6, "C_out": 33, "kernel": [2, 2], "stride": 3, "bias": True,
                    "R": 3}},
        {"name": "check_deep_channels_last", "role": "check",
         "params": {"N": 1, "C_in": 67, "H": 5, "W": 5, "C_out": 17, "kernel": [4, 4], "stride": 2, "padding": 1,
                    "layout": "channels_last", "R": 268}},
        {"name": "bench_upsample", "role": "bench",
         "params": {"N": 64, "C_in": 256, "H": 64, "W": 64, "C_out": 128, "kernel": [4, 4], "stride": 2,
                    "padding": 1, "bias": True, "R": 1024}},
    ],
}


def reference(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    # True fp32 for float32: PyTorch lets cuDNN use TF32 for convolutions by default.
    flags = torch.backends.cudnn
    saved = flags.allow_tf32
    flags.allow_tf32 = False
    try:
        if input.device.type == "cpu" and input.dtype == torch.float16:
            # PyTorch's CPU kernel for half adds the scattered taps up in half (errors of ~2x this task's
            # tolerance); cuDNN sums in fp32. Compute in fp32 and round once, as the contract defines.
            bias32 = None if bias is None else bias.float()
            out = F.conv_transpose2d(input.float(), weight.float(), bias32, stride, padding, output_padding,
                                     groups, dilation)
            return out.to(input.dtype)
        return F.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)
    finally:
        flags.allow_tf32 = saved


def _arg(value):
    return tuple(value) if isinstance(value, list) else value


def make_inputs(workload, dtype, generator):
    p = workload.params
    groups = p.get("groups", 1)
    kh, kw = p["kernel"]
    shape = [p["C_in"], p["H"], p["W"]] if p["N"] == 0 else [p["N"], p["C_in"], p["H"], p["W"]]
    x = inputs.randn(shape, dtype, generator)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=8.0)
    if p.get("layout") == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    w = inputs.uniform([p["C_in"], p["C_out"] // groups, kh, kw], -2.0, 2.0, dtype, generator)
    if p.get("weight_layout") == "channels_last":
        w = w.contiguous(memory_format=torch.channels_last)
    b = inputs.randn([p["C_out"]], dtype, generator) if p.get("bias", False) else None
    return {
        "input": x, "weight": w, "bias": b,
        "stride": _arg(p.get("stride", 1)), "padding": _arg(p.get("padding", 0)),
        "output_padding": _arg(p.get("output_padding", 0)), "groups": groups,
        "dilation": _arg(p.get("dilation", 1)),
    }


def perturb(workload, rng):
    # Batch, image and per-group channel sizes move (odd, never more multiply-adds or elements); kernel, stride,
    # padding, output_padding, dilation, groups, bias and layout stay. The image stays large enough that the
    # padding never removes the whole output.
    p = workload.params
    g = p.get("groups", 1)
    kh, kw = p["kernel"]
    st = p.get("stride", 1)
    sh, sw = (st, st) if isinstance(st, int) else st

    def cost(d):
        n, h, w, cg, og = d
        n = max(n, 1)
        return n * h * w * cg * og * g * kh * kw, n * h * w * g * (cg + og * sh * sw) + og * g * cg * kh * kw

    n, h, w, cg, og = sizes.shape_near(
        rng, [p["N"], p["H"], p["W"], p["C_in"] // g, p["C_out"] // g], at_least={1: 3, 2: 3},
        keep=[0] if p["N"] == 0 else [], cost=cost,
    )
    return {**p, "N": n, "H": h, "W": w, "C_in": cg * g, "C_out": og * g,
            "R": cg * math.ceil(kh / sh) * math.ceil(kw / sw)}
