"""2-D adaptive max pooling: the output size is given, each output is the maximum of its own window.

    OH, OW = output_size (an int means both; None keeps the input's size in that dim)
    rows of output oh:  hs = floor(oh * H / OH),  he = ceil((oh + 1) * H / OH)        (columns likewise)
    out[..., oh, ow] = max(input[..., hs:he, ws:we])

Mirrors `torch.nn.functional.adaptive_max_pool2d(input, output_size, return_indices=False)`, values only: every
workload passes return_indices=False and candidates need not support True. When H is not a multiple of OH the
windows differ in size (by one) and neighbouring windows overlap by one row; when OH > H they are one or two
rows wide. The input is (N, C, H, W) or (C, H, W); the output has the input's dtype (channels-last inputs give
channels-last outputs, as in PyTorch; only values are compared). A maximum is one of its inputs, so the
contract is exact.

Inputs are finite: NaN propagation is not exercised (as in amax and argmax; PyTorch returns NaN for a window
holding one, Triton's `tl.maximum` and `tl.max` drop it by default). Inputs are mostly negative (normal, mean -3,
with outliers of both signs), so a maximum started at 0 instead
of -inf shows, and a window that misses a row often misses its maximum. Workloads cover sizes that divide and
that do not, global pooling (output 1), outputs larger than the input, None in output_size, a 3-D input,
transposed, strided and channels-last (NHWC memory) inputs, the first half of the channels of a larger tensor
(`check_channel_slice`, as after x.chunk(2, dim=1): unit last stride and dense planes, yet a kernel that assumes
planes H * W apart reads the wrong half from the second sample on), and global pooling of a 97 x 101 plane
(`check_global_large`: one window of 9797 elements) whose unique maximum lies past element 8192 of the plane, past
any window tile capped at 8192 elements; and windows 700 wide (`check_window_rows_over_128`, every input row's
unique maximum past column 512), past a window row read 128 at a time by a kernel that never reads the rest (the
solution passed every other check with its loop over a window row cut to the first 128).
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs

TASK = {
    "name": "adaptive_max_pool2d",
    "category": "Pooling",
    "level": 1,
    "signature": "(input, output_size, return_indices=False)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["adaptive_max_pool2d", "adaptive_max_pool1d", "adaptive_max_pool3d", "max_pool2d", "max_pool1d",
                  "max_pool3d", "fractional_max_pool2d", "unfold", "max", "amax", "maximum", "fmax", "cummax",
                  "topk", "sort", "kthvalue"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "defaults_kept": {
        "return_indices": "the task is the pooled values; the indices are a second output with a contract of "
                          "their own (first index on ties within uneven, overlapping windows) not covered here",
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1, 3, 8, 8], "output_size": 4}},
        {"name": "smoke_uneven", "role": "smoke", "params": {"shape": [1, 2, 9, 7], "output_size": [4, 3]}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"shape": [3, 2, 7, 9], "output_size": [2, 3], "layout": "channel_slice"}},
        {"name": "check_uneven", "role": "check", "params": {"shape": [1, 3, 33, 31], "output_size": [7, 5]}},
        {"name": "check_global", "role": "check", "params": {"shape": [2, 3, 17, 19], "output_size": 1}},
        {"name": "check_larger_output", "role": "check", "params": {"shape": [1, 2, 5, 7], "output_size": [8, 9]}},
        {"name": "check_none", "role": "check", "params": {"shape": [1, 2, 12, 23], "output_size": [None, 6]}},
        {"name": "check_3d_input", "role": "check", "params": {"shape": [3, 30, 29], "output_size": 4}},
        {"name": "check_wide_window", "role": "check", "params": {"shape": [1, 2, 9, 150], "output_size": [2, 3]}},
        {"name": "check_window_rows_over_128", "role": "check",
         "params": {"shape": [1, 2, 6, 700], "output_size": [3, 1], "peak": "late_in_rows"}},
        {"name": "check_channels_last", "role": "check",
         "params": {"shape": [1, 67, 15, 13], "output_size": [4, 5], "layout": "channels_last"}},
        {"name": "check_channels_last_global", "role": "check",
         "params": {"shape": [2, 130, 7, 7], "output_size": 1, "layout": "channels_last"}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [1, 3, 31, 33], "output_size": [5, 7], "layout": "transposed"}},
        {"name": "check_strided", "role": "check",
         "params": {"shape": [1, 3, 24, 40], "output_size": [6, 7], "layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [256, 1024, 64, 64], "output_size": 7}},
        {"name": "check_global_large", "role": "check",
         "params": {"shape": [1, 2, 97, 101], "output_size": 1, "peak": "late"}},
        {"name": "bench_global_channels_last", "role": "bench",
         "params": {"shape": [2048, 2048, 14, 14], "output_size": 1, "layout": "channels_last"}},
    ],
}


def reference(input, output_size, return_indices=False):
    return F.adaptive_max_pool2d(input, output_size, return_indices)


def _arg(value):
    # JSON lists become tuples, the form torch documents for a (height, width) pair.
    return tuple(value) if isinstance(value, list) else value


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=-3.0)
    x = inputs.with_outliers(x, generator, fraction=2e-3, magnitude=40.0)
    if p.get("peak") in ("late", "late_in_rows"):  # in the whole plane, or in every row
        x = inputs.late_extremum(x, [-2, -1] if p["peak"] == "late" else [-1], generator).to(x.dtype)
    layout = p.get("layout", "contiguous")
    x = x.contiguous(memory_format=torch.channels_last) if layout == "channels_last" else inputs.layout(x, layout)
    return {"input": x, "output_size": _arg(p["output_size"]), "return_indices": False}
