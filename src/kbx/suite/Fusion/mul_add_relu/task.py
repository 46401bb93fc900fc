"""Per-channel affine transform followed by ReLU: the folded batch-norm + ReLU epilogue of a conv layer.

    input (N, C, *spatial) with the channels on dim 1 (NCHW convention); scale, shift of shape (C,)
    mul_add_relu(input, scale, shift)[n, c, ...] = max(input[n, c, ...] * scale[c] + shift[c], 0)

The unfused PyTorch composition is `torch.relu(input * scale.view(1, C, 1, 1) + shift.view(1, C, 1, 1))` (with
as many trailing 1s as there are spatial dims). The reference evaluates the multiply-add in fp32 and rounds
once, as a fused epilogue does; eager float16 would round the product first, which near the ReLU's kink
(x * scale ~ -shift) is off by up to half an ulp of the product, more than the float16 tolerance on a small
output. `input`, `scale` and `shift` share one dtype (float32 or float16); the output has the input's shape and
dtype.

Fusion: a fused kernel reads the input once (scale and shift are C values, cache-resident) and writes once;
neither the product nor the affine result is written. Minimum traffic: 2 * numel * itemsize bytes, against
6 for multiply, add and ReLU as three kernels.

Inputs: `input` is normal (std 2, offset 0.5), `scale` is normal around 0.5 with std 1 (so about a third of
the channels flip sign) and `shift` is normal, so about half the outputs are clamped to 0 and the channel
broadcast matters everywhere. Workloads cover 2-D (N, C), 3-D (N, C, L) and 4-D inputs with odd sizes, and a
channels-last input (memory order N, H, W, C), where the channel is the fastest-moving index in memory.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "mul_add_relu",
    "category": "Fusion",
    "level": 2,
    "signature": "(input, scale, shift)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["relu", "relu6", "clamp", "clamp_min", "clip", "threshold", "maximum", "max", "fmax", "where",
                  "hardtanh", "mul", "multiply", "add", "addcmul", "baddbmm", "batch_norm", "native_batch_norm",
                  "instance_norm"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [2, 3, 5, 7]}},
        {"name": "check_4d", "role": "check", "params": {"shape": [3, 17, 13, 11]}},
        {"name": "check_3d", "role": "check", "params": {"shape": [2, 65, 129]}},
        {"name": "check_2d", "role": "check", "params": {"shape": [129, 127]}},
        {"name": "check_big_plane", "role": "check", "params": {"shape": [1, 3, 65, 67]}},
        {"name": "check_channels_last", "role": "check",
         "params": {"shape": [2, 33, 9, 13], "layout": "channels_last"}},
        {"name": "bench", "role": "bench", "params": {"shape": [64, 256, 128, 128]}},
        {"name": "bench_channels_last", "role": "bench",
         "params": {"shape": [128, 512, 56, 56], "layout": "channels_last"}},
    ],
}


def reference(input, scale, shift):
    view = [1, -1] + [1] * (input.dim() - 2)
    y = input.float() * scale.float().view(view) + shift.float().view(view)
    return torch.relu(y).to(input.dtype)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    x = inputs.randn(shape, dtype, generator, scale=2.0, offset=0.5)
    if p.get("layout") == "channels_last":
        x = x.to(memory_format=torch.channels_last)
    scale = inputs.randn(shape[1:2], dtype, generator, offset=0.5)
    shift = inputs.randn(shape[1:2], dtype, generator)
    return {"input": x, "scale": scale, "shift": shift}
