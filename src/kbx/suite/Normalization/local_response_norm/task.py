"""Local response normalization: each value divided by a power of the sum of squares of its neighbouring channels.

    x: (N, C, *spatial), channels along dim 1; n = size
    div[n, c, ...] = k + alpha / n * sum_{c' = c - n//2}^{c + (n-1)//2} x[n, c', ...]^2   (channels outside
                     [0, C) count as 0, and the divisor is always n, even at the borders)
    y = x / div^beta

Mirrors `torch.nn.functional.local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0)` (the AlexNet
layer). For an even size the window is asymmetric: n/2 channels before c and n/2 - 1 after. The output has the
input's shape and dtype; bf16 inputs are computed in fp32 and rounded once (the reference upcasts: PyTorch's
CPU build has no bf16 avg_pool3d, which its definition uses).

The normalized axis is the channel dim (1), not the last one. Inputs have AlexNet-like magnitudes (normal,
scale 30-60, with outliers), so with alpha = 1e-4 the divisor is visibly above 1 (returning x fails by ~20%).
Workloads cover odd and even sizes, a size larger than C, size 1, k = 2 (AlexNet), beta = 0.5, 3-D, 4-D and
5-D inputs, 130 channels, channels-last (NHWC memory), transposed and strided inputs, and the first half of
the channels of a larger tensor (x.chunk(2, dim=1): unit last stride, yet a kernel that assumes samples C * S apart
reads the wrong half).
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs

TASK = {
    "name": "local_response_norm",
    "category": "Normalization",
    "level": 1,
    "signature": "(input, size, alpha=0.0001, beta=0.75, k=1.0)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["local_response_norm", "avg_pool1d", "avg_pool2d", "avg_pool3d", "conv1d", "conv2d", "conv3d",
                  "unfold", "cumsum", "sum", "mean", "pow", "float_power", "rsqrt", "sqrt", "square", "pad"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [2, 8, 5, 5], "size": 5, "scale": 50.0}},
        {"name": "smoke_3d", "role": "smoke",
         "params": {"shape": [2, 7, 30], "size": 3, "scale": 10.0, "alpha": 0.01}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"shape": [3, 6, 5, 7], "size": 3, "scale": 50.0, "alpha": 0.001, "layout": "channel_slice"}},
        {"name": "check_alexnet", "role": "check",
         "params": {"shape": [2, 13, 17, 15], "size": 5, "scale": 60.0, "k": 2.0}},
        {"name": "check_even_size", "role": "check",
         "params": {"shape": [2, 9, 11, 13], "size": 4, "scale": 30.0, "alpha": 0.001, "beta": 0.5}},
        {"name": "check_size_above_c", "role": "check",
         "params": {"shape": [1, 3, 20, 21], "size": 7, "scale": 50.0, "alpha": 0.001}},
        {"name": "check_size1", "role": "check",
         "params": {"shape": [2, 5, 9, 9], "size": 1, "scale": 5.0, "alpha": 0.1}},
        {"name": "check_many_channels", "role": "check",
         "params": {"shape": [1, 130, 9, 7], "size": 5, "scale": 50.0}},
        {"name": "check_5d", "role": "check",
         "params": {"shape": [2, 6, 3, 5, 7], "size": 3, "scale": 40.0, "alpha": 0.001}},
        {"name": "check_channels_last", "role": "check",
         "params": {"shape": [2, 67, 9, 7], "size": 5, "scale": 50.0, "layout": "channels_last"}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [2, 6, 31, 33], "size": 3, "scale": 50.0, "alpha": 0.001, "layout": "transposed"}},
        {"name": "check_strided_3d", "role": "check",
         "params": {"shape": [3, 10, 65], "size": 5, "scale": 50.0, "layout": "strided"}},
        {"name": "bench", "role": "bench",
         "params": {"shape": [256, 96, 128, 128], "size": 5, "scale": 50.0, "k": 2.0}},
        {"name": "bench_channels_last", "role": "bench",
         "params": {"shape": [128, 256, 64, 64], "size": 5, "scale": 50.0, "layout": "channels_last"}},
    ],
}


def reference(input, size, alpha=0.0001, beta=0.75, k=1.0):
    if input.dtype in (torch.float16, torch.bfloat16):
        return F.local_response_norm(input.float(), size, alpha, beta, k).to(input.dtype)
    return F.local_response_norm(input, size, alpha, beta, k)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    # Per-channel scale in [scale/2, scale], so neighbouring channels weigh differently.
    channel = [1, shape[1]] + [1] * (len(shape) - 2)
    scale = inputs.uniform(channel, 0.5 * p["scale"], p["scale"], "float32", generator)
    x = inputs.randn(shape, "float32", generator) * scale
    x = inputs.with_outliers(x, generator, fraction=2e-3, magnitude=4.0 * p["scale"])
    x = x.to(inputs.torch_dtype(dtype))
    layout = p.get("layout", "contiguous")
    if layout == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    else:
        x = inputs.layout(x, layout)
    return {"input": x, "size": p["size"], "alpha": p.get("alpha", 0.0001), "beta": p.get("beta", 0.75),
            "k": p.get("k", 1.0)}
