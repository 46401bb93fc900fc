"""pixel_shuffle: rearrange blocks of r*r channels into r x r patches of space (depth to space, "CRD" order).

    input  (*, C * r * r, H, W)  ->  output (*, C, H * r, W * r),  r = upscale_factor
    out[..., c, h * r + i, w * r + j] = input[..., c * r * r + i * r + j, h, w]     (0 <= i, j < r)

Mirrors `torch.nn.functional.pixel_shuffle(input, upscale_factor)`. The channel index splits as (c, i, j)
with c outermost (not the (i, j, c) "DCR" order of TensorFlow's depth_to_space), i moves along the height and j
along the width. The output has the input's dtype and holds copies, so the contract is exact. `*` is zero or
more batch dimensions.

Workloads: upscale factors 2, 3 and 4 (and 1, the identity), 3-D (no batch), 4-D and 5-D inputs, sizes that
straddle block sizes, and transposed (H and W swapped in memory) and strided (non-contiguous) inputs; the strided
5-D input (`check_r4_5d`) has its batch planes twice as far apart as packed ones, and `check_channel_slice` is
the first half of the channels of a larger tensor (as after x.chunk(2, dim=1): unit last stride and dense planes,
yet a kernel that assumes samples C r^2 H W apart reads the wrong half from the second sample on). Values are
distinct normals with an offset, so any permutation error shows. Benches: a 2x shuffle of a 32 x 1024 x 128 x
128 feature map and a 3x shuffle of a 16 x 576 x 192 x 192 one.
"""

import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "pixel_shuffle",
    "category": "SpatialOps",
    "level": 1,
    "signature": "(input, upscale_factor)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["pixel_shuffle", "pixel_unshuffle", "permute", "transpose", "movedim",
                  "moveaxis", "swapaxes", "swapdims", "as_strided", "einsum", "unfold", "fold", "rearrange"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"batch": [2], "channels": 3, "r": 2, "hw": [5, 7]}},
        {"name": "smoke_r3_3d", "role": "smoke", "params": {"batch": [], "channels": 2, "r": 3, "hw": [4, 6]}},
        {"name": "check_r2_tail", "role": "check", "params": {"batch": [3], "channels": 5, "r": 2, "hw": [33, 65]}},
        {"name": "check_r3_wide", "role": "check", "params": {"batch": [2], "channels": 3, "r": 3, "hw": [9, 129]}},
        {"name": "check_r4_5d", "role": "check",
         "params": {"batch": [2, 3], "channels": 2, "r": 4, "hw": [7, 17], "layout": "strided"}},
        {"name": "check_r1_identity", "role": "check",
         "params": {"batch": [2], "channels": 7, "r": 1, "hw": [13, 127]}},
        {"name": "check_r2_transposed", "role": "check",
         "params": {"batch": [2], "channels": 4, "r": 2, "hw": [31, 45], "layout": "transposed"}},
        {"name": "check_r3_strided_3d", "role": "check",
         "params": {"batch": [], "channels": 5, "r": 3, "hw": [21, 43], "layout": "strided"}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"batch": [3], "channels": 2, "r": 2, "hw": [9, 11], "layout": "channel_slice"}},
        {"name": "bench_r2", "role": "bench", "params": {"batch": [32], "channels": 256, "r": 2, "hw": [128, 128]}},
        {"name": "bench_r3", "role": "bench", "params": {"batch": [16], "channels": 64, "r": 3, "hw": [192, 192]}},
    ],
}


def reference(input, upscale_factor):
    return F.pixel_shuffle(input, upscale_factor)


def make_inputs(workload, dtype, generator):
    p = workload.params
    r = p["r"]
    shape = [*p["batch"], p["channels"] * r * r, *p["hw"]]
    x = inputs.randn(shape, dtype, generator, scale=3.0, offset=0.5)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "upscale_factor": r}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); r, the batch rank and the layout stay.
    p = workload.params
    moved = sizes.shape_near(rng, [*p["batch"], p["channels"], *p["hw"]])
    nb = len(p["batch"])
    return {**p, "batch": moved[:nb], "channels": moved[nb], "hw": moved[nb + 1:]}
