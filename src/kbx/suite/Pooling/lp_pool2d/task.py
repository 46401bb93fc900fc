"""2-D power-average (Lp) pooling over the last two dims, no padding, floor or ceil output size.

    p = norm_type;  kH, kW = kernel_size;  sH, sW = stride (None: = kernel_size)
    OH = floor_or_ceil((H - kH) / sH) + 1   (ceil_mode; with ceil the last window must start inside the input)
    for output (oh, ow): the window rows [oh sH, min(oh sH + kH, H)), columns likewise, holding `count` inputs
    out[..., oh, ow] = (sum over the window of x^p  *  (kH kW / count))^(1/p)

Mirrors `torch.nn.functional.lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False)`, which PyTorch
computes as avg_pool2d(x^p) * kH kW, then the 1/p power. Note the factor kH kW / count: it is 1 for every full
window, but a ceil_mode window cut off by the bottom/right edge has its sum scaled up as if the missing inputs
repeated the window's mean (a 2 x 3 remainder of a 3 x 3 window of ones gives sqrt(9) = 3, not sqrt(6)). x^p is x**p
as torch.pow defines it (no absolute value): for p = 1 the output is the signed window sum; for an integer p a
negative x gives (-1)^p |x|^p, and a window whose sum is negative has no real (1/p)-th power, so its output is NaN,
as in PyTorch (p = 3); for a non-integer p a negative x is NaN, and so is its window. `kernel_size` and `stride` are
an int or a (height, width) pair. The input is (N, C, H, W) or (C, H, W); the output has the input's dtype. bf16
inputs are computed in fp32 and rounded once; PyTorch rounds x^p, the average and the product to bf16 on the way, so
the solution, rounding once, uses up to ~60% of the bf16 tolerance (fp32: ~3% of the default).

Inputs are normal (mean 0.5, with outliers) or, for p = 3 and 1.5, uniform in [0.05, 3]. `check_p3_signed` has p = 3
on inputs of both signs, each one of +-0.5, +-1.5 and +-2.5: their cubes are odd multiples of 1/8, exact in every
dtype, so the sum of a 3 x 3 window's nine cubes is an odd multiple of 1/8, never 0, and has the same sign in the
reference (which rounds on the way in bf16) as in float64: the windows that are NaN (a negative sum, about half) are
the same in both, and a kernel that computes x^p as exp2(p log2 x) returns NaN on every window with a negative
input. Workloads cover p = 2, 1, 3 and 1.5, overlapping windows and gaps, non-square kernels and strides, the
default stride, ceil_mode with partial windows, a 3-D input, transposed, strided and channels-last (NHWC memory)
inputs, the first half of the channels of a larger tensor (`check_channel_slice`, as after x.chunk(2, dim=1): unit
last stride and dense planes, yet a kernel that assumes planes H * W apart reads the wrong half from the second
sample on), and rows of 9001 (`check_long_row`: 4500 outputs a row, more than one block of outputs a kernel may
cap a row at).
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "lp_pool2d",
    "category": "Pooling",
    "level": 1,
    "signature": "(input, norm_type, kernel_size, stride=None, ceil_mode=False)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["lp_pool2d", "lp_pool1d", "lp_pool3d", "avg_pool2d", "avg_pool1d", "avg_pool3d",
                  "adaptive_avg_pool2d", "conv2d", "unfold", "interpolate", "mean", "sum", "nansum", "norm",
                  "vector_norm", "linalg_norm", "pow", "float_power", "square", "sqrt"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"shape": [2, 3, 8, 8], "norm_type": 2.0, "kernel_size": 2, "stride": None, "ceil_mode": False}},
        {"name": "smoke_p1", "role": "smoke",
         "params": {"shape": [1, 2, 9, 9], "norm_type": 1.0, "kernel_size": 3, "stride": 2, "ceil_mode": False}},
        {"name": "check_odd", "role": "check",
         "params": {"shape": [2, 3, 33, 31], "norm_type": 2.0, "kernel_size": 3, "stride": 2, "ceil_mode": False}},
        {"name": "check_ceil_partial", "role": "check",
         "params": {"shape": [1, 3, 30, 28], "norm_type": 2.0, "kernel_size": 3, "stride": 2, "ceil_mode": True}},
        {"name": "check_p3_rect", "role": "check",
         "params": {"shape": [2, 3, 29, 37], "norm_type": 3.0, "kernel_size": [2, 3], "stride": [1, 2],
                    "ceil_mode": False, "positive": True}},
        {"name": "check_p3_signed", "role": "check",
         "params": {"shape": [2, 4, 25, 23], "norm_type": 3.0, "kernel_size": 3, "stride": 2, "ceil_mode": False,
                    "signed": "odd_halves"}},
        {"name": "check_p1_5_ceil", "role": "check",
         "params": {"shape": [1, 3, 23, 41], "norm_type": 1.5, "kernel_size": [3, 2], "stride": None,
                    "ceil_mode": True, "positive": True}},
        {"name": "check_p1_gap_ceil", "role": "check",
         "params": {"shape": [2, 2, 30, 34], "norm_type": 1.0, "kernel_size": 2, "stride": [3, 4],
                    "ceil_mode": True, "layout": "strided"}},
        {"name": "check_3d_input", "role": "check",
         "params": {"shape": [5, 31, 29], "norm_type": 2.0, "kernel_size": 2, "stride": None, "ceil_mode": False}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [2, 3, 31, 33], "norm_type": 2.0, "kernel_size": 3, "stride": 3, "ceil_mode": True,
                    "layout": "transposed"}},
        {"name": "check_channels_last", "role": "check",
         "params": {"shape": [2, 67, 13, 9], "norm_type": 2.0, "kernel_size": 3, "stride": 2, "ceil_mode": True,
                    "layout": "channels_last"}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"shape": [3, 4, 9, 11], "norm_type": 2.0, "kernel_size": 3, "stride": 2, "ceil_mode": True,
                    "layout": "channel_slice"}},
        {"name": "check_long_row", "role": "check",
         "params": {"shape": [1, 2, 5, 9001], "norm_type": 2.0, "kernel_size": 3, "stride": 2, "ceil_mode": False}},
        {"name": "bench_k2", "role": "bench",
         "params": {"shape": [128, 128, 224, 224], "norm_type": 2.0, "kernel_size": 2, "stride": None,
                    "ceil_mode": False}},
        {"name": "bench_p3_k3s2", "role": "bench",
         "params": {"shape": [64, 192, 225, 225], "norm_type": 3.0, "kernel_size": 3, "stride": 2,
                    "ceil_mode": True, "positive": True}},
    ],
}


def reference(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return F.lp_pool2d(input, norm_type, kernel_size, stride, ceil_mode)


def _arg(value):
    # JSON lists become tuples, the form torch documents for a (height, width) pair.
    return tuple(value) if isinstance(value, list) else value


def make_inputs(workload, dtype, generator):
    p = workload.params
    if p.get("positive"):
        x = inputs.uniform(p["shape"], 0.05, 3.0, dtype, generator)
    elif p.get("signed") == "odd_halves":
        # +-0.5, +-1.5 or +-2.5: cubes that are odd multiples of 1/8, whose odd-length sums are never 0 (see above).
        half = inputs.randint(0, 3, p["shape"], generator) + 0.5
        sign = inputs.randint(0, 2, p["shape"], generator) * 2 - 1
        x = (sign * half).to(inputs.torch_dtype(dtype))
    else:
        x = inputs.randn(p["shape"], dtype, generator, scale=1.5, offset=0.5)
        x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=20.0)
    layout = p.get("layout", "contiguous")
    x = x.contiguous(memory_format=torch.channels_last) if layout == "channels_last" else inputs.layout(x, layout)
    return {"input": x, "norm_type": p["norm_type"], "kernel_size": _arg(p["kernel_size"]),
            "stride": _arg(p["stride"]), "ceil_mode": p["ceil_mode"]}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements), at least one window high and wide; p, kernel,
    # stride, ceil_mode, the inputs' kind and layout stay.
    p = workload.params
    k = p["kernel_size"]
    kh, kw = (k, k) if isinstance(k, int) else k
    return {**p, "shape": sizes.shape_near(rng, p["shape"], at_least={-2: kh, -1: kw})}
