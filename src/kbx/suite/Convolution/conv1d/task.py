"""1-D convolution (cross-correlation) with fp32 accumulation: `torch.nn.functional.conv1d`.

    Cg = C_in / groups,  Og = C_out / groups,  g = o // Og          (the group of output channel o)
    out[n, o, x] = bias[o] + sum_{c < Cg, s < k} weight[o, c, s] * input[n, g*Cg + c, x*stride - pad + s*dilation]
    OL = (L + 2*pad - dilation*(k - 1) - 1) // stride + 1

Input positions outside [0, L) read as zero (zero padding). Mirrors `F.conv1d(input, weight, bias=None, stride=1,
padding=0, dilation=1, groups=1)`: `input` is (N, C_in, L) or unbatched (C_in, L), `weight` is
(C_out, C_in / groups, k), `bias` is (C_out,) or None; `stride`, `padding` and `dilation` are an int or a
1-tuple, and `padding` may also be 'valid' (none) or 'same' (output as long as the input, stride 1; torch puts the
odd element of an odd total padding dilation*(k-1) at the end). The output has the input's dtype. For float32 the
products are true fp32 (the reference turns cuDNN's default TF32 off); bfloat16 products are summed in fp32 and
rounded once.

Workloads cover stride with dilation and padding, grouped and depthwise convolutions with bias, an unbatched input,
'same' padding with an asymmetric total, 'valid' padding (none: the output is k - 1 shorter), 1-tuple arguments with
a stride larger than the kernel's footprint and 33 output channels, and a deep reduction (C_in = 129) over an input
whose length axis is strided (every other element of a wider buffer). The weight of `check_stride_dilation` is
transposed (its last two dims stored column-major), so a kernel that addresses the weight as a contiguous array
fails there. Values: `input` is normal with a few outliers (+-8), `weight` uniform in [-2, 2), `bias` normal, so an
output's standard deviation is about 1.15 * sqrt(R), R = C_in / groups * k the reduction length.

Tolerance: float32 1e-5 * sqrt(R) + 1e-5 * |ref| (the default widened with R, room for a different fp32
summation order); bfloat16 4e-3 * sqrt(R) + 1.6e-2 * |ref| (two bf16 ulps, as a different order or a fused bias
can flip the final rounding and the interpreter truncates fp32 -> bf16 casts, plus 0.35% of the outputs'
standard deviation for outputs that cancel to nearly zero). Measured: the solution uses at most 0.09 of the
float32 tolerance and matches the CPU reference exactly in bfloat16 (both round an fp32 sum once; CPU
interpreter, seeds 0-1).
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "conv1d",
    "category": "Convolution",
    "level": 1,
    "signature": "(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["conv1d", "conv2d", "conv3d", "convolution", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d", "cudnn_convolution", "mkldnn_convolution", "unfold", "fold", "im2col",
                  "matmul", "mm", "bmm", "einsum", "tensordot", "linear", "addmm", "baddbmm", "sum", "@"],
    "contract": {
        "kind": "allclose",
        "tolerance": {"float32": [1e-5, 1e-5], "bfloat16": [4e-3, 1.6e-2]},
        "reduction_length": "R", "tensor_cores": True,
        "tf32": False,
    },
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"N": 2, "C_in": 4, "L": 40, "C_out": 8, "k": 3, "padding": 1, "R": 12}},
        {"name": "check_stride_dilation", "role": "check",
         "params": {"N": 3, "C_in": 5, "L": 129, "C_out": 7, "k": 5, "stride": 2, "padding": 3, "dilation": 2,
                    "bias": True, "R": 25, "weight_layout": "transposed"}},
        {"name": "check_groups_same", "role": "check",
         "params": {"N": 2, "C_in": 12, "L": 65, "C_out": 9, "k": 3, "padding": "same", "groups": 3, "bias": True,
                    "R": 12}},
        {"name": "check_same_asymmetric", "role": "check",
         "params": {"N": 1, "C_in": 6, "L": 127, "C_out": 5, "k": 4, "padding": "same", "dilation": 3, "R": 24}},
        {"name": "check_valid", "role": "check",
         "params": {"N": 1, "C_in": 3, "L": 37, "C_out": 5, "k": 4, "padding": "valid", "R": 12}},
        {"name": "check_depthwise_unbatched", "role": "check",
         "params": {"N": 0, "C_in": 4, "L": 97, "C_out": 4, "k": 5, "padding": 2, "groups": 4, "bias": True,
                    "R": 5}},
        {"name": "check_tuple_args", "role": "check",
         "params": {"N": 2, "C_in": 3, "L": 50, "C_out": 33, "k": 2, "stride": [3], "padding": [2], "R": 6}},
        {"name": "check_deep_strided", "role": "check",
         "params": {"N": 1, "C_in": 129, "L": 33, "C_out": 17, "k": 3, "layout": "strided", "R": 387}},
        {"name": "bench", "role": "bench",
         "params": {"N": 64, "C_in": 512, "L": 4096, "C_out": 512, "k": 3, "padding": 1, "bias": True, "R": 1536}},
        {"name": "bench_wide_kernel", "role": "bench",
         "params": {"N": 16, "C_in": 256, "L": 16384, "C_out": 256, "k": 9, "padding": 4, "R": 2304}},
    ],
}


def reference(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    # True fp32 for float32: PyTorch lets cuDNN use TF32 for convolutions by default.
    flags = torch.backends.cudnn
    saved = flags.allow_tf32
    flags.allow_tf32 = False
    try:
        return F.conv1d(input, weight, bias, stride, padding, dilation, groups)
    finally:
        flags.allow_tf32 = saved


def _arg(value):
    return tuple(value) if isinstance(value, list) else value


def make_inputs(workload, dtype, generator):
    p = workload.params
    groups = p.get("groups", 1)
    shape = [p["C_in"], p["L"]] if p["N"] == 0 else [p["N"], p["C_in"], p["L"]]
    x = inputs.randn(shape, dtype, generator)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=8.0)
    w = inputs.uniform([p["C_out"], p["C_in"] // groups, p["k"]], -2.0, 2.0, dtype, generator)
    w = inputs.layout(w, p.get("weight_layout", "contiguous"))
    b = inputs.randn([p["C_out"]], dtype, generator) if p.get("bias", False) else None
    return {
        "input": inputs.layout(x, p.get("layout", "contiguous")), "weight": w, "bias": b,
        "stride": _arg(p.get("stride", 1)), "padding": _arg(p.get("padding", 0)),
        "dilation": _arg(p.get("dilation", 1)), "groups": groups,
    }


def perturb(workload, rng):
    # Batch, length and per-group channel sizes move (odd, never more multiply-adds or elements); kernel size,
    # stride, padding, dilation, groups, bias and layout stay. The input stays at least one dilated kernel long.
    p = workload.params
    g, k = p.get("groups", 1), p["k"]
    d = p.get("dilation", 1)
    d = d[0] if isinstance(d, list) else d

    def cost(s):
        n, length, cg, og = s
        return max(n, 1) * length * cg * og * g * k, max(n, 1) * length * (cg + og) * g + og * g * cg * k

    n, length, cg, og = sizes.shape_near(
        rng, [p["N"], p["L"], p["C_in"] // g, p["C_out"] // g], at_least={1: d * (k - 1) + 1},
        keep=[0] if p["N"] == 0 else [], cost=cost,
    )
    return {**p, "N": n, "L": length, "C_in": cg * g, "C_out": og * g, "R": cg * k}
