"""1-D average pooling over the last dim, with zero padding, ceil_mode and count_include_pad.

    k = kernel_size, s = stride (None: = k), p = padding (PyTorch requires p <= k / 2)
    OL = floor_or_ceil((L + 2p - k) / s) + 1          (ceil when ceil_mode=True, else floor)
         and, with ceil_mode, OL -= 1 if (OL - 1) s >= L + p      (the last window must start inside)
    for output o:  start = o s - p,  end = min(start + k, L + p)
                   sum = x[max(start, 0) : min(end, L)].sum()     (padding contributes zeros)
                   out[..., o] = sum / (end - start)                     if count_include_pad
                                 sum / (min(end, L) - max(start, 0))     otherwise

Mirrors `torch.nn.functional.avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
count_include_pad=True)`; `kernel_size`, `stride` and `padding` are ints. Note the divisor with
count_include_pad=True: it counts the padding but not the part of a ceil_mode window that hangs past the right
padding (a window over [L - 1, L + p + 1) with p = 1 divides by 2, not by k = 3). The input is (N, C, L) or
(C, L); the output has the input's dtype, bf16 windows are summed in fp32 and rounded once, as PyTorch does.

Inputs are normal with a mean of 2 and outliers, so a divisor off by one window element (padding counted or
not, the ceil overhang counted) changes border outputs by ~1/k of their value. Workloads cover padding with
both count_include_pad settings, ceil_mode with partial last windows (also where PyTorch's last-window rule
drops one), sizes the windows do not tile, overlapping windows and gaps, a 16-wide kernel, a 2-D input,
transposed (channels contiguous) and strided inputs, the first half of the channels of a larger tensor
(`check_channel_slice`, as after x.chunk(2, dim=1): unit last stride and dense rows, yet a kernel that assumes
rows L apart reads the wrong half from the second sample on), and rows of 9001 (`check_long_row`: 4501 outputs a
row, more than one block of outputs a kernel may cap a row at).
"""

import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "avg_pool1d",
    "category": "Pooling",
    "level": 1,
    "signature": "(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
                  "lp_pool1d", "conv1d", "conv2d", "unfold", "interpolate", "mean", "sum", "cumsum", "nanmean",
                  "nansum"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"shape": [2, 3, 20], "kernel_size": 3, "stride": 2, "padding": 0, "ceil_mode": False,
                    "count_include_pad": True}},
        {"name": "smoke_pad_exclude", "role": "smoke",
         "params": {"shape": [2, 3, 21], "kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": False,
                    "count_include_pad": False}},
        {"name": "check_tail_default_stride", "role": "check",
         "params": {"shape": [3, 5, 4097], "kernel_size": 4, "stride": None, "padding": 0, "ceil_mode": False,
                    "count_include_pad": True}},
        {"name": "check_pad_include", "role": "check",
         "params": {"shape": [2, 7, 129], "kernel_size": 5, "stride": 2, "padding": 2, "ceil_mode": False,
                    "count_include_pad": True}},
        {"name": "check_pad_exclude", "role": "check",
         "params": {"shape": [2, 7, 127], "kernel_size": 5, "stride": 2, "padding": 2, "ceil_mode": False,
                    "count_include_pad": False}},
        {"name": "check_ceil_include", "role": "check",
         "params": {"shape": [2, 4, 130], "kernel_size": 4, "stride": 3, "padding": 1, "ceil_mode": True,
                    "count_include_pad": True}},
        {"name": "check_ceil_exclude", "role": "check",
         "params": {"shape": [3, 6, 61], "kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                    "count_include_pad": False}},
        {"name": "check_ceil_drop_rule", "role": "check",
         "params": {"shape": [2, 5, 29], "kernel_size": 3, "stride": 3, "padding": 1, "ceil_mode": True,
                    "count_include_pad": True}},
        {"name": "check_gap_no_pad_ceil", "role": "check",
         "params": {"shape": [2, 3, 101], "kernel_size": 2, "stride": 3, "padding": 0, "ceil_mode": True,
                    "count_include_pad": True}},
        {"name": "check_2d_input", "role": "check",
         "params": {"shape": [17, 257], "kernel_size": 2, "stride": None, "padding": 1, "ceil_mode": False,
                    "count_include_pad": True}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [2, 65, 67], "kernel_size": 3, "stride": 1, "padding": 1, "ceil_mode": False,
                    "count_include_pad": False, "layout": "transposed"}},
        {"name": "check_strided_big_kernel", "role": "check",
         "params": {"shape": [3, 5, 1000], "kernel_size": 16, "stride": 7, "padding": 8, "ceil_mode": True,
                    "count_include_pad": True, "layout": "strided"}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"shape": [3, 4, 67], "kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                    "count_include_pad": False, "layout": "channel_slice"}},
        {"name": "check_long_row", "role": "check",
         "params": {"shape": [2, 3, 9001], "kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": False,
                    "count_include_pad": True}},
        {"name": "bench_k4", "role": "bench",
         "params": {"shape": [64, 256, 65536], "kernel_size": 4, "stride": None, "padding": 0, "ceil_mode": False,
                    "count_include_pad": True}},
        {"name": "bench_k3s1_exclude", "role": "bench",
         "params": {"shape": [128, 512, 8192], "kernel_size": 3, "stride": 1, "padding": 1, "ceil_mode": False,
                    "count_include_pad": False}},
    ],
}


def reference(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return F.avg_pool1d(input, kernel_size, stride, padding, ceil_mode, count_include_pad)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=2.0)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=40.0)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "kernel_size": p["kernel_size"],
            "stride": p["stride"], "padding": p["padding"], "ceil_mode": p["ceil_mode"],
            "count_include_pad": p["count_include_pad"]}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements), the length at least one window (less the
    # padding); kernel, stride, padding, the flags and the layout stay.
    p = workload.params
    span = max(p["kernel_size"] - 2 * p["padding"], 1)
    return {**p, "shape": sizes.shape_near(rng, p["shape"], at_least={-1: span})}
