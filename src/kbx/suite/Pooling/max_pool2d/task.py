"""2-D max pooling over the last two dims, with padding, dilation and ceil_mode.

    kH, kW = kernel_size;  sH, sW = stride (None: = kernel_size);  pH, pW = padding;  dH, dW = dilation
    OH = floor_or_ceil((H + 2 pH - dH (kH - 1) - 1) / sH) + 1            (ceil when ceil_mode=True, else floor)
         and, with ceil_mode, OH -= 1 if (OH - 1) sH >= H + pH            (the last window must start inside)
    out[..., oh, ow] = max over kh < kH, kw < kW of  xpad[..., oh sH - pH + kh dH, ow sW - pW + kw dW]

where xpad is x padded with -inf: padded positions and positions past the bottom/right edge that a ceil_mode
window reaches never win (they are not zeros). OW likewise. Mirrors
`torch.nn.functional.max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False)`
returning values only (return_indices=False). `kernel_size`, `stride`, `padding`, `dilation` are an int or a
(height, width) pair; PyTorch requires padding <= kernel_size / 2. The input is (N, C, H, W) or (C, H, W); the
output has the input's dtype. A maximum is one of its inputs, so the contract is exact (ties between equal
values cannot change the value).

Inputs are finite: NaN propagation is not exercised (as in amax and argmax; PyTorch returns NaN for a window
holding one, Triton's `tl.maximum` and `tl.max` drop it by default). Inputs are mostly negative (normal, mean -3)
with outliers, so a border window that counts padding as 0 returns
0 instead of its negative maximum. Workloads cover padding with odd sizes, ceil_mode with partial last windows
(and one where PyTorch's "last window must start inside" rule drops a row and a column), dilation, non-square
kernels, strides and padding, the default stride, a 3-D input, transposed, strided and channels-last
(NHWC memory, the common layout for convnets on tensor cores) inputs, the first half of the channels of a larger
tensor (x.chunk(2, dim=1): unit last stride, yet a kernel that assumes planes H * W apart reads the wrong half
from the second sample on), and rows of 9001 (`check_long_row`: 4501 outputs a row, more than one block of
outputs a kernel may cap a row at) whose unique maximum lies past element 8192, in the row's last block.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "max_pool2d",
    "category": "Pooling",
    "level": 1,
    "signature": "(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["max_pool2d", "max_pool1d", "max_pool3d", "max_pool2d_with_indices", "adaptive_max_pool2d",
                  "fractional_max_pool2d", "lp_pool2d", "unfold", "max", "amax", "maximum", "fmax", "cummax",
                  "topk", "sort", "kthvalue", "dilation2d"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"shape": [2, 3, 8, 8], "kernel_size": 2, "stride": None, "padding": 0, "dilation": 1,
                    "ceil_mode": False}},
        {"name": "smoke_pad", "role": "smoke",
         "params": {"shape": [1, 2, 9, 9], "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 1,
                    "ceil_mode": False}},
        {"name": "check_pad_odd", "role": "check",
         "params": {"shape": [2, 3, 33, 31], "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 1,
                    "ceil_mode": False}},
        {"name": "check_ceil_partial", "role": "check",
         "params": {"shape": [1, 3, 30, 28], "kernel_size": 3, "stride": 2, "padding": 0, "dilation": 1,
                    "ceil_mode": True}},
        {"name": "check_ceil_drop_rule", "role": "check",
         "params": {"shape": [1, 3, 29, 35], "kernel_size": 3, "stride": 3, "padding": 1, "dilation": 1,
                    "ceil_mode": True}},
        {"name": "check_dilation_rect", "role": "check",
         "params": {"shape": [1, 3, 37, 41], "kernel_size": [3, 2], "stride": [2, 1], "padding": [1, 1],
                    "dilation": [2, 3], "ceil_mode": False}},
        {"name": "check_dilation_ceil", "role": "check",
         "params": {"shape": [1, 3, 40, 45], "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 2,
                    "ceil_mode": True}},
        {"name": "check_big_window_3d", "role": "check",
         "params": {"shape": [3, 31, 29], "kernel_size": 7, "stride": 3, "padding": 3, "dilation": 1,
                    "ceil_mode": False}},
        {"name": "check_default_stride_transposed", "role": "check",
         "params": {"shape": [2, 3, 23, 41], "kernel_size": [3, 2], "stride": None, "padding": [1, 0],
                    "dilation": 1, "ceil_mode": True, "layout": "transposed"}},
        {"name": "check_strided", "role": "check",
         "params": {"shape": [2, 2, 30, 34], "kernel_size": 2, "stride": [3, 4], "padding": 1, "dilation": 1,
                    "ceil_mode": False, "layout": "strided"}},
        {"name": "check_channels_last", "role": "check",
         "params": {"shape": [2, 67, 13, 9], "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 1,
                    "ceil_mode": False, "layout": "channels_last"}},
        {"name": "check_channels_last_ceil", "role": "check",
         "params": {"shape": [2, 70, 9, 11], "kernel_size": 2, "stride": 2, "padding": 1, "dilation": 1,
                    "ceil_mode": True, "layout": "channels_last"}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"shape": [3, 4, 9, 11], "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 1,
                    "ceil_mode": False, "layout": "channel_slice"}},
        {"name": "check_long_row", "role": "check",
         "params": {"shape": [1, 2, 5, 9001], "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 1,
                    "ceil_mode": False, "peak": "late"}},
        {"name": "bench_k3s2p1", "role": "bench",
         "params": {"shape": [128, 128, 224, 224], "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 1,
                    "ceil_mode": False}},
        {"name": "bench_channels_last", "role": "bench",
         "params": {"shape": [256, 256, 112, 112], "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 1,
                    "ceil_mode": True, "layout": "channels_last"}},
    ],
}


def reference(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    return F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _arg(value):
    # JSON lists become tuples, the form torch documents for a (height, width) pair.
    return tuple(value) if isinstance(value, list) else value


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=-3.0)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=40.0)
    if p.get("peak") == "late":
        x = inputs.late_extremum(x, [-1], generator).to(x.dtype)
    layout = p.get("layout", "contiguous")
    x = x.contiguous(memory_format=torch.channels_last) if layout == "channels_last" else inputs.layout(x, layout)
    return {"input": x, "kernel_size": _arg(p["kernel_size"]), "stride": _arg(p["stride"]),
            "padding": _arg(p["padding"]), "dilation": _arg(p["dilation"]), "ceil_mode": p["ceil_mode"]}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements), each spatial size at least one dilated window
    # (less twice the padding); kernel, stride, padding, dilation, ceil_mode and layout stay.
    p = workload.params
    def pair(v):
        return [v, v] if isinstance(v, int) else list(v)
    (kh, kw), (ph, pw), (dh, dw) = pair(p["kernel_size"]), pair(p["padding"]), pair(p["dilation"])
    span = {-2: max(dh * (kh - 1) + 1 - 2 * ph, 1), -1: max(dw * (kw - 1) + 1 - 2 * pw, 1)}
    return {**p, "shape": sizes.shape_near(rng, p["shape"], at_least=span)}
