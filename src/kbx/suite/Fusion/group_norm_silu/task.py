"""Group normalization followed by SiLU, the norm-activation pair of diffusion U-Net and VAE blocks.

    input (N, C, *spatial), C divisible by G = num_groups; group g of sample n holds channels
    [g * C/G, (g + 1) * C/G) over all spatial positions
    mean, var = E[x], E[(x - mean)^2] over each (n, g) group            (biased variance; fp32)
    z = (x - mean) / sqrt(var + eps) * weight[c] + bias[c]              (per-channel affine)
    group_norm_silu(input, num_groups, weight, bias, eps) = silu(z) = z * sigmoid(z)

The unfused PyTorch composition is `F.silu(F.group_norm(input, num_groups, weight, bias, eps))`. `input`,
`weight` and `bias` (both of size C) share one dtype (float32 or bfloat16); the output has the input's shape
and dtype. In bfloat16 the reference rounds z before SiLU; a fused kernel that rounds once is within an ulp.

Fusion: a fused kernel never writes z: it reads the input for the statistics and (when a group does not fit on
chip) once more to normalise, and writes the output once. Minimum traffic: 2 * numel * itemsize bytes when a
group fits in registers, 3 otherwise, against 5 for group_norm and silu as two kernels.

Inputs: every channel has its own mean (uniform in [-3, 3]) and spread (1/2 to 2), so the channels of a group
differ and statistics taken per channel (instance norm) or over the wrong channels show. Workloads cover 3-D
and 4-D inputs, odd channel-group sizes and spatial sizes (3 x 143, 65 x 129), one group (layer-norm-like),
one channel per group (instance-norm-like), a group of 16770 elements (longer than one on-chip tile) and a
channels-last (non-contiguous) input.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "group_norm_silu",
    "category": "Fusion",
    "level": 2,
    "signature": "(input, num_groups, weight, bias, eps=1e-05)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["group_norm", "native_group_norm", "layer_norm", "instance_norm", "batch_norm", "rms_norm",
                  "normalize", "norm", "mean", "nanmean", "sum", "nansum", "var", "std", "var_mean", "std_mean",
                  "rsqrt", "sqrt", "silu", "sigmoid", "expit", "exp", "tanh", "mul", "multiply", "addcmul"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [2, 8, 5, 5], "groups": 4}},
        {"name": "check_odd_groups", "role": "check", "params": {"shape": [3, 12, 11, 13], "groups": 4}},
        {"name": "check_3d", "role": "check", "params": {"shape": [2, 32, 129], "groups": 8}},
        {"name": "check_long_groups", "role": "check", "params": {"shape": [1, 4, 65, 129], "groups": 2}},
        {"name": "check_one_group", "role": "check", "params": {"shape": [2, 6, 17, 9], "groups": 1}},
        {"name": "check_group_per_channel", "role": "check", "params": {"shape": [2, 6, 17, 9], "groups": 6}},
        {"name": "check_large_eps", "role": "check", "params": {"shape": [2, 12, 9, 7], "groups": 3, "eps": 0.25}},
        {"name": "check_channels_last", "role": "check",
         "params": {"shape": [2, 16, 9, 11], "groups": 4, "layout": "channels_last"}},
        {"name": "bench", "role": "bench", "params": {"shape": [32, 512, 128, 128], "groups": 32}},
        {"name": "bench_wide", "role": "bench", "params": {"shape": [128, 1280, 32, 32], "groups": 32}},
    ],
}


def reference(input, num_groups, weight, bias, eps=1e-05):
    return F.silu(F.group_norm(input, num_groups, weight, bias, eps))


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    c = shape[1]
    chan = [1, c] + [1] * (len(shape) - 2)
    mean = inputs.uniform(chan, -3.0, 3.0, "float32", generator)
    std = torch.exp2(inputs.uniform(chan, -1.0, 1.0, "float32", generator))
    x = (inputs.randn(shape, "float32", generator) * std + mean).to(inputs.torch_dtype(dtype))
    if p.get("layout") == "channels_last":
        x = x.to(memory_format=torch.channels_last)
    weight = inputs.randn([c], dtype, generator, scale=0.5, offset=1.0)
    bias = inputs.randn([c], dtype, generator, scale=0.5)
    return {"input": x, "num_groups": p["groups"], "weight": weight, "bias": bias, "eps": p.get("eps", 1e-05)}


def perturb(workload, rng):
    # Batch and spatial sizes move (never more elements); channels and groups stay (C divisible by G).
    p = workload.params
    return {**p, "shape": sizes.shape_near(rng, p["shape"], keep=[1])}
