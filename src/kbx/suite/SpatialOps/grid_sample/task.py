"""grid_sample: sample a 4-D input at arbitrary (x, y) points given by a grid, with bilinear interpolation.

input (N, C, H, W), grid (N, Ho, Wo, 2) -> output (N, C, Ho, Wo). grid[n, h, w] = (x, y) in normalised
coordinates: x = -1 is the left edge of the input and x = 1 the right edge (y likewise for the height).
Unnormalised pixel coordinates:

    align_corners=False:  ix = ((x + 1) * W - 1) / 2     (-1 and 1 are the outer edges of the corner pixels)
    align_corners=True:   ix = (x + 1) / 2 * (W - 1)      (-1 and 1 are the centres of the corner pixels)

(iy likewise with H). padding_mode='border' first clamps ix to [0, W - 1] and iy to [0, H - 1]. Then, with
x0 = floor(ix), y0 = floor(iy), fx = ix - x0, fy = iy - y0:

    out[n, c, h, w] = (1-fy)(1-fx) I[y0, x0] + (1-fy) fx I[y0, x0+1] + fy (1-fx) I[y0+1, x0] + fy fx I[y0+1, x0+1]

where I = input[n, c] and, for padding_mode='zeros', a corner outside the input counts as 0.

Mirrors `torch.nn.functional.grid_sample(input, grid, mode='bilinear', padding_mode='zeros',
align_corners=False)` for 4-D inputs, mode='bilinear' and padding_mode 'zeros' or 'border' (the workloads use
only these; 'nearest', 'bicubic' and 'reflection' are out of scope). The output has the input's dtype; fp16
inputs are interpolated in fp32 and rounded once, as PyTorch's CUDA kernel does (the reference upcasts: CPU
PyTorch interpolates fp16 in fp16, with errors near 5e-2).

Grid values are multiples of 2^-10 (after rounding to the grid's dtype), so every unnormalised coordinate and
every bilinear weight is exact in fp32 whichever way it is computed; PyTorch's CPU and CUDA kernels round the
unnormalisation differently, and with arbitrary grids that alone moves outputs by about |dI/dx| * ulp(ix), which
grows with the image size (measured with uniform grids on a 33 x 47 input: 0.76x the fp32 tolerance between this
solution and CPU PyTorch, 1.1x between PyTorch in fp32 and in fp64). With the lattice, the default tolerances
only absorb the rounding of the four-term sum: the solution uses at most 0.03x of the fp32 tolerance and 0.45x of
the fp16 one (where the fp32 sums straddle an fp16 rounding boundary: one fp16 step) on the check workloads.

Grids are warps, as in spatial transformers and optical-flow warping: an identity grid stretched to span
[-1.1, 1.1] (so the outer rows and columns sample outside the input, where zeros and border padding differ)
plus a random displacement of up to `jitter` in normalised units (0.25 to 0.6 in the check workloads, several
to tens of pixels, so samples land anywhere; 0.02 in the benches, a few pixels), and 2% of coordinates replaced
by exact -1, 0 or 1. Workloads cover both align_corners values, both padding modes, output grids smaller and
larger than the input, channel counts that straddle block sizes, channels-last and transposed inputs, a strided
grid, and (`check_channel_slice`) the first half of the channels of a larger input (as after x.chunk(2, dim=1))
with the first half of the rows of a larger grid: unit last strides and dense rows, yet a kernel that assumes
samples C * H * W (or Ho * Wo * 2) apart reads the wrong half from the second sample on. Benches: a flow-warp
of a 32 x 128 x 256 x 256 feature map (zeros) and a 2x resampling of 16 x 256 x 128 x 128 (border).
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "grid_sample",
    "category": "SpatialOps",
    "level": 1,
    "signature": "(input, grid, mode='bilinear', padding_mode='zeros', align_corners=False)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["grid_sample", "grid_sampler", "grid_sampler_2d", "interpolate", "upsample", "upsample_bilinear2d",
                  "affine_grid", "gather", "take", "take_along_dim", "index_select", "getitem", "remap"],
    "contract": {"kind": "allclose"},
    "defaults_kept": {
        "mode": "the task is bilinear sampling; 'nearest' and 'bicubic' are other interpolations with other "
                "rounding rules, out of this task's scope",
    },
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"n": 2, "c": 3, "hw": [8, 10], "out_hw": [6, 7], "padding_mode": "zeros", "align_corners": False}},
        {"name": "smoke_border_ac", "role": "smoke",
         "params": {"n": 1, "c": 2, "hw": [9, 7], "out_hw": [5, 8], "padding_mode": "border", "align_corners": True}},
        {"name": "check_zeros_tail", "role": "check",
         "params": {"n": 2, "c": 5, "hw": [33, 47], "out_hw": [23, 129], "padding_mode": "zeros",
                    "align_corners": False, "jitter": 0.6}},
        {"name": "check_zeros_ac", "role": "check",
         "params": {"n": 3, "c": 17, "hw": [20, 31], "out_hw": [15, 33], "padding_mode": "zeros",
                    "align_corners": True}},
        {"name": "check_border", "role": "check",
         "params": {"n": 2, "c": 33, "hw": [16, 21], "out_hw": [13, 27], "padding_mode": "border",
                    "align_corners": False, "jitter": 0.6}},
        {"name": "check_border_ac_upsample", "role": "check",
         "params": {"n": 1, "c": 4, "hw": [9, 13], "out_hw": [37, 65], "padding_mode": "border",
                    "align_corners": True}},
        {"name": "check_channels_last", "role": "check",
         "params": {"n": 2, "c": 19, "hw": [23, 29], "out_hw": [21, 31], "padding_mode": "zeros",
                    "align_corners": False, "layout": "channels_last"}},
        {"name": "check_transposed_grid_strided", "role": "check",
         "params": {"n": 2, "c": 6, "hw": [27, 35], "out_hw": [19, 41], "padding_mode": "border",
                    "align_corners": False, "layout": "transposed", "grid_layout": "strided"}},
        {"name": "check_channel_slice", "role": "check",
         "params": {"n": 3, "c": 4, "hw": [9, 11], "out_hw": [7, 13], "padding_mode": "zeros",
                    "align_corners": True, "layout": "channel_slice", "grid_layout": "channel_slice"}},
        {"name": "bench_flow_warp", "role": "bench",
         "params": {"n": 32, "c": 128, "hw": [256, 256], "out_hw": [256, 256], "padding_mode": "zeros",
                    "align_corners": False, "jitter": 0.02}},
        {"name": "bench_upsample_border", "role": "bench",
         "params": {"n": 16, "c": 256, "hw": [128, 128], "out_hw": [256, 256], "padding_mode": "border",
                    "align_corners": True, "jitter": 0.02}},
    ],
}


def reference(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    out = F.grid_sample(input.float(), grid.float(), mode=mode, padding_mode=padding_mode,
                        align_corners=align_corners)
    return out.to(input.dtype)


def make_inputs(workload, dtype, generator):
    p = workload.params
    n, c, (h, w), (ho, wo) = p["n"], p["c"], p["hw"], p["out_hw"]
    x = inputs.randn([n, c, h, w], dtype, generator, scale=2.0, offset=0.5)
    # An identity grid spanning [-1.1, 1.1] plus a random displacement, on a 2^-10 lattice (exact coordinates
    # and weights), with 2% exact -1, 0, 1.
    ys = torch.linspace(-1.1, 1.1, ho, device=generator.device)
    xs = torch.linspace(-1.1, 1.1, wo, device=generator.device)
    base = torch.stack([xs.expand(ho, wo), ys[:, None].expand(ho, wo)], dim=-1)
    jitter = p.get("jitter", 0.25)
    g = base + inputs.uniform([n, ho, wo, 2], -jitter, jitter, "float32", generator)
    special = inputs.randint(-1, 2, [n, ho, wo, 2], generator).float()
    pick = inputs.uniform([n, ho, wo, 2], 0, 1, "float32", generator) < 0.02
    g = torch.where(pick, special, torch.round(g * 1024) / 1024).to(inputs.torch_dtype(dtype))
    layout = p.get("layout", "contiguous")
    if layout == "channels_last":
        x = x.contiguous(memory_format=torch.channels_last)
    else:
        x = inputs.layout(x, layout)
    return {
        "input": x,
        "grid": inputs.layout(g, p.get("grid_layout", "contiguous")),
        "padding_mode": p["padding_mode"],
        "align_corners": p["align_corners"],
    }


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); modes and layouts stay.
    p = workload.params
    moved = sizes.shape_near(rng, [p["n"], p["c"], *p["hw"], *p["out_hw"]], at_least={2: 2, 3: 2},
                             cost=lambda s: (s[0] * s[1] * s[2] * s[3], s[0] * s[1] * s[4] * s[5]))
    return {**p, "n": moved[0], "c": moved[1], "hw": moved[2:4], "out_hw": moved[4:6]}
