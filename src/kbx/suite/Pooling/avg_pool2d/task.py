"""2-D average pooling over the last two dims, no padding, floor output size.

    kH, kW = kernel_size;  sH, sW = stride (stride=None means stride = kernel_size)
    OH = (H - kH) // sH + 1,  OW = (W - kW) // sW + 1
    out[..., oh, ow] = mean(input[..., oh * sH : oh * sH + kH, ow * sW : ow * sW + kW])

Mirrors `torch.nn.functional.avg_pool2d(input, kernel_size, stride)` with padding=0, ceil_mode=False (so every
window is full and is divided by kH * kW). `kernel_size` and `stride` are an int (same in both dims) or a
2-list/tuple (height, width). The input is (N, C, H, W) or (C, H, W); the output has the input's dtype and
fp16 windows are summed in fp32 and rounded once, as PyTorch does. Workloads cover sizes the windows do not
tile (the last rows/columns are dropped), overlapping windows (stride < kernel), gaps between windows
(stride > kernel), non-square kernels and strides, 3-D inputs, transposed/strided layouts, the first half of the
channels of a larger tensor (`check_channel_slice`, as after x.chunk(2, dim=1): unit last stride and dense planes,
yet a kernel that assumes planes H * W apart reads the wrong half from the second sample on), and rows of 9001
(`check_long_row`: 4500 outputs a row, more than one block of outputs a kernel may cap a row at).
"""

import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "avg_pool2d",
    "category": "Pooling",
    "level": 1,
    "signature": "(input, kernel_size, stride=None)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["avg_pool2d", "adaptive_avg_pool2d", "avg_pool1d", "avg_pool3d", "lp_pool2d", "conv2d", "unfold",
                  "interpolate", "mean", "sum"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [2, 3, 8, 8], "kernel_size": 2, "stride": None}},
        {"name": "smoke_overlap", "role": "smoke",
         "params": {"shape": [1, 2, 9, 9], "kernel_size": 3, "stride": 2}},
        {"name": "check_odd_border", "role": "check",
         "params": {"shape": [2, 5, 33, 31], "kernel_size": 2, "stride": None}},
        {"name": "check_overlap_3d", "role": "check",
         "params": {"shape": [7, 65, 63], "kernel_size": 3, "stride": 2}},
        {"name": "check_rect_kernel", "role": "check",
         "params": {"shape": [2, 3, 29, 37], "kernel_size": [2, 3], "stride": [1, 2]}},
        {"name": "check_rect_default_stride", "role": "check",
         "params": {"shape": [3, 4, 23, 41], "kernel_size": [3, 2], "stride": None, "layout": "transposed"}},
        {"name": "check_gap_strided", "role": "check",
         "params": {"shape": [2, 4, 30, 34], "kernel_size": 2, "stride": [3, 4], "layout": "strided"}},
        {"name": "check_wide_runs", "role": "check",
         "params": {"shape": [2, 3, 19, 70], "kernel_size": [3, 4], "stride": None}},
        {"name": "check_big_window", "role": "check",
         "params": {"shape": [1, 3, 40, 45], "kernel_size": [7, 5], "stride": [4, 3]}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"shape": [3, 4, 9, 11], "kernel_size": 3, "stride": 2, "layout": "channel_slice"}},
        {"name": "check_long_row", "role": "check",
         "params": {"shape": [1, 2, 5, 9001], "kernel_size": 3, "stride": 2}},
        {"name": "bench_k2", "role": "bench",
         "params": {"shape": [128, 128, 256, 256], "kernel_size": 2, "stride": None}},
        {"name": "bench_k3s2", "role": "bench",
         "params": {"shape": [64, 192, 225, 225], "kernel_size": 3, "stride": 2}},
    ],
}


def reference(input, kernel_size, stride=None):
    return F.avg_pool2d(input, kernel_size, stride)


def _arg(value):
    # JSON lists become tuples, the form torch documents for a (height, width) pair.
    return tuple(value) if isinstance(value, list) else value


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=0.75)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=40.0)
    return {
        "input": inputs.layout(x, p.get("layout", "contiguous")),
        "kernel_size": _arg(p["kernel_size"]),
        "stride": _arg(p["stride"]),
    }


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements), still at least one window high and wide; kernel,
    # stride and layout stay.
    p = workload.params
    k = p["kernel_size"]
    kh, kw = (k, k) if isinstance(k, int) else k
    return {**p, "shape": sizes.shape_near(rng, p["shape"], at_least={-2: kh, -1: kw})}
