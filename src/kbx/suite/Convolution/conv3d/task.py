"""3-D convolution (cross-correlation) with fp32 accumulation: `torch.nn.functional.conv3d`.

    out[n, o, z, y, x] = bias[o] + sum_{c < C_in, q < kD, r < kH, s < kW}
                         weight[o, c, q, r, s] * input[n, c, z*sD - pD + q*dD, y*sH - pH + r*dH, x*sW - pW + s*dW]
    OD = (D + 2*pD - dD*(kD - 1) - 1) // sD + 1       (likewise OH, OW)

Input positions outside the volume read as zero (zero padding). Mirrors `F.conv3d(input, weight, bias=None,
stride=1, padding=0, dilation=1, groups=1)`: `input` is (N, C_in, D, H, W) or unbatched (C_in, D, H, W), `weight`
is (C_out, C_in, kD, kH, kW), `bias` is (C_out,) or None; `stride`, `padding` and `dilation` are an int or a
(depth, height, width) triple, and `padding` may also be 'valid' (none) or 'same' (output as large as the input,
stride 1; torch puts the odd voxel of an odd total padding d*(k-1) at the far end). `groups` splits the channels
into independent convolutions (weight (C_out, C_in / groups, kD, kH, kW)); one check workload uses groups=3
(grouped convolution is the subject of conv2d_grouped). The output has the input's dtype (float16 or bfloat16);
products are summed in fp32 and rounded once.

Workloads cover stride with padding, per-axis triples of kernel size, stride, padding and dilation (all three axes
different, so a candidate mixing up the axes fails), a (2+1)-D style temporal kernel (3, 1, 1) on a channels-last-3d
input with 33 output channels, an unbatched input with 'same' padding and an even kernel, 'valid' padding (none)
with a (2, 3, 2) kernel, a deep reduction (C_in = 67, 3 x 3 x 3, L = 1809), three groups of 3 input channels, and
the first half of the channels of a larger input (`check_channel_slice`, as after x.chunk(2, dim=1): unit last
stride and dense volumes, yet a kernel that assumes samples C_in * D * H * W apart reads the wrong half from the
second sample on).
Values: `input` is normal with a few outliers (+-8), `weight` uniform in [-2, 2), `bias` normal, so an output's
standard deviation is about 1.15 * sqrt(L) where L = C_in / groups * kD * kH * kW is the reduction length. The
weight of `check_triples` is channels-last-3d (as a model converted to channels_last_3d holds it), so a kernel that
addresses the weight as a contiguous array fails there.

Tolerance: float16 2e-4 * sqrt(L) + 2e-3 * |ref| (two fp16 ulps, as a different summation order or a fused bias
can flip the final rounding, plus 2e-4 of the outputs' standard deviation for outputs that cancel to nearly
zero); bfloat16 4e-3 * sqrt(L) + 1.6e-2 * |ref| (likewise two bf16 ulps; the interpreter truncates fp32 -> bf16
casts). Measured: the solution uses at most 0.36 of the float16 tolerance and matches the CPU reference exactly
in bfloat16 (both round an fp32 sum once; CPU interpreter, seeds 0-1); a running sum kept in the input dtype
exceeds it 3.7x-6.1x in float16 and 2.1x-2.9x in bfloat16 (smoke, check_deep).
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "conv3d",
    "category": "Convolution",
    "level": 1,
    "signature": "(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["conv1d", "conv2d", "conv3d", "convolution", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d", "cudnn_convolution", "mkldnn_convolution", "slow_conv3d", "unfold", "fold",
                  "im2col", "matmul", "mm", "bmm", "einsum", "tensordot", "linear", "addmm", "baddbmm", "sum",
                  "@"],
    "contract": {
        "kind": "allclose",
        "tolerance": {"float16": [2e-4, 2e-3], "bfloat16": [4e-3, 1.6e-2]},
        "reduction_length": "L", "tensor_cores": True,
    },
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"N": 1, "C_in": 3, "D": 4, "H": 5, "W": 6, "C_out": 4, "kernel": [3, 3, 3], "padding": 1,
                    "L": 81}},
        {"name": "check_stride_pad", "role": "check",
         "params": {"N": 2, "C_in": 5, "D": 7, "H": 9, "W": 8, "C_out": 7, "kernel": [3, 3, 3], "stride": 2,
                    "padding": 1, "bias": True, "L": 135}},
        {"name": "check_triples", "role": "check",
         "params": {"N": 1, "C_in": 4, "D": 9, "H": 13, "W": 14, "C_out": 9, "kernel": [2, 3, 5],
                    "stride": [1, 2, 3], "padding": [1, 0, 2], "dilation": [3, 1, 2], "bias": True, "L": 120,
                    "weight_layout": "channels_last"}},
        {"name": "check_temporal_channels_last", "role": "check",
         "params": {"N": 2, "C_in": 16, "D": 5, "H": 6, "W": 7, "C_out": 33, "kernel": [3, 1, 1],
                    "padding": [1, 0, 0], "bias": True, "layout": "channels_last", "L": 48}},
        {"name": "check_same_unbatched", "role": "check",
         "params": {"N": 0, "C_in": 3, "D": 5, "H": 6, "W": 7, "C_out": 5, "kernel": [4, 3, 2],
                    "padding": "same", "L": 72}},
        {"name": "check_valid", "role": "check",
         "params": {"N": 1, "C_in": 2, "D": 4, "H": 5, "W": 6, "C_out": 3, "kernel": [2, 3, 2], "padding": "valid",
                    "L": 24}},
        {"name": "check_deep", "role": "check",
         "params": {"N": 1, "C_in": 67, "D": 4, "H": 5, "W": 6, "C_out": 17, "kernel": [3, 3, 3], "padding": 1,
                    "L": 1809}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"N": 2, "C_in": 3, "D": 3, "H": 4, "W": 5, "C_out": 4, "kernel": [3, 3, 3], "padding": 1,
                    "layout": "channel_slice", "L": 81}},
        {"name": "check_groups", "role": "check",
         "params": {"N": 1, "C_in": 9, "D": 5, "H": 7, "W": 9, "C_out": 15, "kernel": [3, 3, 3], "padding": 1,
                    "groups": 3, "bias": True, "L": 81}},
        {"name": "bench_video_3x3x3", "role": "bench",
         "params": {"N": 8, "C_in": 128, "D": 16, "H": 56, "W": 56, "C_out": 128, "kernel": [3, 3, 3],
                    "padding": 1, "bias": True, "L": 3456}},
        {"name": "bench_video_stride2", "role": "bench",
         "params": {"N": 8, "C_in": 64, "D": 32, "H": 112, "W": 112, "C_out": 128, "kernel": [3, 3, 3],
                    "stride": [1, 2, 2], "padding": 1, "L": 1728}},
    ],
}


def reference(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return F.conv3d(input, weight, bias, stride, padding, dilation, groups)


def _arg(value):
    # JSON lists become tuples, the form torch documents for a (depth, height, width) triple.
    return tuple(value) if isinstance(value, list) else value


def make_inputs(workload, dtype, generator):
    p = workload.params
    kd, kh, kw = p["kernel"]
    shape = [p["C_in"], p["D"], p["H"], p["W"]]
    if p["N"] > 0:
        shape = [p["N"], *shape]
    x = inputs.randn(shape, dtype, generator)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=8.0)
    layout = p.get("layout", "contiguous")
    x = x.contiguous(memory_format=torch.channels_last_3d) if layout == "channels_last" else inputs.layout(x, layout)
    groups = p.get("groups", 1)
    assert p["L"] == p["C_in"] // groups * kd * kh * kw, "L must be the reduction length C_in / groups * kD * kH * kW"
    w = inputs.uniform([p["C_out"], p["C_in"] // groups, kd, kh, kw], -2.0, 2.0, dtype, generator)
    if p.get("weight_layout") == "channels_last":
        w = w.contiguous(memory_format=torch.channels_last_3d)
    b = inputs.randn([p["C_out"]], dtype, generator) if p.get("bias", False) else None
    return {
        "input": x, "weight": w, "bias": b,
        "stride": _arg(p.get("stride", 1)), "padding": _arg(p.get("padding", 0)),
        "dilation": _arg(p.get("dilation", 1)), "groups": groups,
    }


def perturb(workload, rng):
    # Batch, volume and channel sizes move (odd, never more multiply-adds or elements); the kernel, stride,
    # padding, dilation, groups, bias and layout stay. The volume stays at least one dilated kernel deep, high and
    # wide; channel counts stay multiples of groups.
    p = workload.params
    dil = p.get("dilation", 1)
    dil = [dil] * 3 if isinstance(dil, int) else dil
    span = {1 + i: dil[i] * (p["kernel"][i] - 1) + 1 for i in range(3)}
    taps = p["kernel"][0] * p["kernel"][1] * p["kernel"][2]

    def cost(s):
        n, d, h, w, c, o = s
        return max(n, 1) * d * h * w * c * o * taps, max(n, 1) * d * h * w * (c + o) + o * c * taps

    n, d, h, w, c, o = sizes.shape_near(
        rng, [p["N"], p["D"], p["H"], p["W"], p["C_in"], p["C_out"]], at_least=span,
        keep=[0] if p["N"] == 0 else [], cost=cost,
    )
    g = p.get("groups", 1)
    c, o = max(g, c - c % g), max(g, o - o % g)
    return {**p, "N": n, "D": d, "H": h, "W": w, "C_in": c, "C_out": o, "L": c // g * taps}
