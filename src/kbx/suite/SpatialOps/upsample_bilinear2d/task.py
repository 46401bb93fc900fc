"""upsample_bilinear2d: resize the last two dims of an (N, C, H, W) tensor to `size` by bilinear interpolation.

For each output dim (height shown; width likewise) with input size H and output size OH:

    align_corners=False:  src = max((oh + 0.5) * H / OH - 0.5, 0)          (pixel centres line up)
    align_corners=True:   src = oh * (H - 1) / (OH - 1)   (0 when OH = 1)   (corner pixels line up)
    h0 = floor(src),  h1 = min(h0 + 1, H - 1),  lh = src - h0

    out[n, c, oh, ow] = (1-lh)(1-lw) x[h0, w0] + (1-lh) lw x[h0, w1] + lh (1-lw) x[h1, w0] + lh lw x[h1, w1]

Mirrors `torch.nn.functional.interpolate(input, size=size, mode='bilinear', align_corners=align_corners)`
(antialias=False, no scale_factor): `size` is an (OH, OW) pair. Works for up- and downsampling. The output has
the input's dtype; bf16 inputs are interpolated in fp32 and rounded once (the reference upcasts, as PyTorch's
CUDA kernel computes in fp32).

Every workload's ratio H / OH (or (H - 1) / (OH - 1) with align_corners) is a dyadic fraction (1/2, 5/4, 2, 3/4,
4, ...), so source coordinates and weights are exact in fp32 however they are computed. With other ratios the
rounding of `src` alone moves outputs by about |dx/dh| * ulp(src): resizing 33 x 47 to 65 x 129, 100 x 61 and
250 x 300, this solution differs from CPU PyTorch by up to 1.5x the fp32 tolerance and PyTorch in fp32 from
PyTorch in fp64 by up to 2.6x. With dyadic ratios the default tolerances only absorb the rounding of the
four-term sum: the solution uses at most 0.03x of the fp32 tolerance (bf16 outputs match exactly).
Workloads: 2x upsampling, downsampling by 2, 3 and 4, non-integer ratios (5/4, 3/4, 4/5), different ratios per
dim, both align_corners values, an output height of 1 with align_corners (the scale is 0: every output row is
input row 0) and an output width of 1 without it (`check_single_column`: the one column samples input column 16,
the centre, not column 0), output sizes that straddle block sizes, channels-last, transposed and strided inputs,
and the first half of the channels of a larger tensor (`check_channel_slice`, as after x.chunk(2, dim=1): unit last
stride and dense planes, yet a kernel that assumes samples C * H * W apart reads the wrong half from the second
sample on). Benches: a 2x upsample of 32 x 128 x 256 x 256 and a 2x align-corners downsample of 32 x 64 x 513 x 513.
"""

import math

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "upsample_bilinear2d",
    "category": "SpatialOps",
    "level": 1,
    "signature": "(input, size, align_corners=False)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["interpolate", "upsample", "upsample_bilinear2d", "upsample_bilinear", "UpsamplingBilinear2d",
                  "grid_sample", "affine_grid", "resize", "avg_pool2d", "conv_transpose2d", "gather", "getitem"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"nc": [2, 3], "hw": [5, 7], "out_hw": [10, 14]}},
        {"name": "smoke_ac", "role": "smoke",
         "params": {"nc": [1, 2], "hw": [9, 5], "out_hw": [17, 9], "align_corners": True}},
        {"name": "check_up2_tail", "role": "check", "params": {"nc": [1, 3], "hw": [33, 65], "out_hw": [66, 130]}},
        {"name": "check_down_mixed", "role": "check",
         "params": {"nc": [2, 3], "hw": [129, 100], "out_hw": [43, 80]}},
        {"name": "check_ratio_3_4", "role": "check", "params": {"nc": [1, 7], "hw": [45, 27], "out_hw": [60, 36]}},
        {"name": "check_ac_up", "role": "check",
         "params": {"nc": [1, 3], "hw": [33, 49], "out_hw": [129, 65], "align_corners": True}},
        {"name": "check_ac_down4", "role": "check",
         "params": {"nc": [3, 2], "hw": [129, 65], "out_hw": [33, 17], "align_corners": True}},
        {"name": "check_ac_single_row", "role": "check",
         "params": {"nc": [1, 3], "hw": [33, 17], "out_hw": [1, 9], "align_corners": True}},
        {"name": "check_single_column", "role": "check",
         "params": {"nc": [1, 3], "hw": [36, 33], "out_hw": [9, 1], "align_corners": False}},
        {"name": "check_channels_last", "role": "check",
         "params": {"nc": [2, 17], "hw": [19, 23], "out_hw": [38, 46], "layout": "channels_last"}},
        {"name": "check_transposed_ac", "role": "check",
         "params": {"nc": [2, 3], "hw": [31, 21], "out_hw": [61, 41], "align_corners": True,
                    "layout": "transposed"}},
        {"name": "check_strided_down", "role": "check",
         "params": {"nc": [2, 4], "hw": [40, 55], "out_hw": [20, 44], "layout": "strided"}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"nc": [3, 4], "hw": [9, 11], "out_hw": [18, 22], "layout": "channel_slice"}},
        {"name": "bench_up2", "role": "bench", "params": {"nc": [32, 128], "hw": [256, 256], "out_hw": [512, 512]}},
        {"name": "bench_down2_ac", "role": "bench",
         "params": {"nc": [32, 64], "hw": [513, 513], "out_hw": [257, 257], "align_corners": True}},
        {"name": "bench_over_2_31", "role": "bench", "min_gpu_gib": 139, "timed": False,
         "params": {"nc": [32, 128], "hw": [362, 363], "out_hw": [724, 725]}},
    ],
}


def reference(input, size, align_corners=False):
    out = F.interpolate(input.float(), size=size, mode="bilinear", align_corners=align_corners)
    return out.to(input.dtype)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn([*p["nc"], *p["hw"]], dtype, generator, scale=2.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=10.0)
    layout = p.get("layout", "contiguous")
    if layout == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    else:
        x = inputs.layout(x, layout)
    return {"input": x, "size": tuple(p["out_hw"]), "align_corners": p.get("align_corners", False)}


def perturb(workload, rng):
    # Odd sizes near the published ones that keep each dim's ratio in / out (with align_corners: (in - 1) /
    # (out - 1)) exactly, so coordinates stay exact; never more elements. align_corners and layout stay.
    p = workload.params
    shift = 1 if p.get("align_corners", False) else 0
    hw, out_hw = [], []
    for n_in, n_out in zip(p["hw"], p["out_hw"]):
        a, b = n_in - shift, n_out - shift
        g = math.gcd(a, b)
        k = sizes.odd_near(rng, g, low=0.5, high=1.0, at_least=1)
        hw.append(k * (a // g) + shift)
        out_hw.append(k * (b // g) + shift)
    return {**p, "nc": sizes.shape_near(rng, p["nc"]), "hw": hw, "out_hw": out_hw}
