"""1-D max pooling over the last dim, with padding, dilation and ceil_mode.

    k = kernel_size, s = stride (None: = k), p = padding (PyTorch requires p <= k / 2), d = dilation
    OL = floor_or_ceil((L + 2p - d (k - 1) - 1) / s) + 1          (ceil when ceil_mode=True, else floor)
         and, with ceil_mode, OL -= 1 if (OL - 1) s >= L + p      (the last window must start inside)
    out[..., o] = max over j < k of xpad[..., o s - p + j d]

where xpad is x padded with -inf: padding and positions past the end never win. Mirrors
`torch.nn.functional.max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False)`
returning values only (return_indices=False, not a parameter here). `kernel_size`, `stride`, `padding` and
`dilation` are ints. The input is (N, C, L) or (C, L); the output has the input's dtype. A maximum is one of its
inputs, so the contract is exact.

Inputs are finite: NaN propagation is not exercised (as in amax and argmax; PyTorch returns NaN for a window
holding one, Triton's `tl.maximum` and `tl.max` drop it by default). Inputs are mostly negative (normal, mean -3,
plus outliers), so treating padding as 0 changes border outputs.
Workloads cover padding with odd lengths, ceil_mode with partial last windows (and one where the last-window
rule drops one), dilation, windows with gaps (stride > kernel), a 2-D input, transposed (channels contiguous)
and strided inputs, the first half of the channels of a larger tensor (`check_channel_slice`, as after
x.chunk(2, dim=1): unit last stride and dense rows, yet a kernel that assumes rows L apart reads the wrong half
from the second sample on), and rows of 9001 (`check_long_row`: 4501 outputs a row, more than one block of outputs a
kernel may cap a row at) whose unique maximum lies past element 8192, in the row's last block.
"""

import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "max_pool1d",
    "category": "Pooling",
    "level": 1,
    "signature": "(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "adaptive_max_pool1d",
                  "lp_pool1d", "unfold", "max", "amax", "maximum", "fmax", "cummax", "topk", "sort", "kthvalue"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"shape": [2, 3, 20], "kernel_size": 2, "stride": None, "padding": 0, "dilation": 1,
                    "ceil_mode": False}},
        {"name": "smoke_pad", "role": "smoke",
         "params": {"shape": [2, 3, 21], "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 1,
                    "ceil_mode": False}},
        {"name": "check_tail", "role": "check",
         "params": {"shape": [3, 5, 4097], "kernel_size": 4, "stride": None, "padding": 0, "dilation": 1,
                    "ceil_mode": False}},
        {"name": "check_pad_odd", "role": "check",
         "params": {"shape": [2, 7, 129], "kernel_size": 5, "stride": 2, "padding": 2, "dilation": 1,
                    "ceil_mode": False}},
        {"name": "check_ceil", "role": "check",
         "params": {"shape": [2, 4, 130], "kernel_size": 4, "stride": 3, "padding": 1, "dilation": 1,
                    "ceil_mode": True}},
        {"name": "check_ceil_drop_rule", "role": "check",
         "params": {"shape": [2, 5, 29], "kernel_size": 3, "stride": 3, "padding": 1, "dilation": 1,
                    "ceil_mode": True}},
        {"name": "check_dilation", "role": "check",
         "params": {"shape": [2, 3, 127], "kernel_size": 3, "stride": 1, "padding": 1, "dilation": 4,
                    "ceil_mode": False}},
        {"name": "check_dilation_ceil", "role": "check",
         "params": {"shape": [2, 3, 100], "kernel_size": 4, "stride": 3, "padding": 2, "dilation": 2,
                    "ceil_mode": True}},
        {"name": "check_gap", "role": "check",
         "params": {"shape": [2, 3, 101], "kernel_size": 2, "stride": 3, "padding": 0, "dilation": 1,
                    "ceil_mode": True}},
        {"name": "check_2d_input", "role": "check",
         "params": {"shape": [17, 257], "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 1,
                    "ceil_mode": False}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [2, 65, 67], "kernel_size": 3, "stride": 1, "padding": 1, "dilation": 1,
                    "ceil_mode": False, "layout": "transposed"}},
        {"name": "check_strided", "role": "check",
         "params": {"shape": [3, 5, 300], "kernel_size": 7, "stride": 3, "padding": 3, "dilation": 1,
                    "ceil_mode": True, "layout": "strided"}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"shape": [3, 4, 67], "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 1,
                    "ceil_mode": False, "layout": "channel_slice"}},
        {"name": "check_long_row", "role": "check",
         "params": {"shape": [2, 3, 9001], "kernel_size": 3, "stride": 2, "padding": 1, "dilation": 1,
                    "ceil_mode": False, "peak": "late"}},
        {"name": "bench_k2", "role": "bench",
         "params": {"shape": [64, 256, 65536], "kernel_size": 2, "stride": None, "padding": 0, "dilation": 1,
                    "ceil_mode": False}},
        {"name": "bench_k3s1", "role": "bench",
         "params": {"shape": [128, 512, 16384], "kernel_size": 3, "stride": 1, "padding": 1, "dilation": 1,
                    "ceil_mode": False}},
        {"name": "bench_over_2_31", "role": "bench", "min_gpu_gib": 139, "timed": False,
         "params": {"shape": [64, 512, 65537], "kernel_size": 2, "stride": None, "padding": 0, "dilation": 1,
                    "ceil_mode": False}},
    ],
}


def reference(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    return F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=-3.0)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=40.0)
    if p.get("peak") == "late":
        x = inputs.late_extremum(x, [-1], generator).to(x.dtype)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "kernel_size": p["kernel_size"],
            "stride": p["stride"], "padding": p["padding"], "dilation": p["dilation"], "ceil_mode": p["ceil_mode"]}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements), the length at least one dilated window (less the
    # padding); kernel, stride, padding, dilation, ceil_mode and layout stay.
    p = workload.params
    span = max(p["dilation"] * (p["kernel_size"] - 1) + 1 - 2 * p["padding"], 1)
    return {**p, "shape": sizes.shape_near(rng, p["shape"], at_least={-1: span})}
