"""Depthwise causal 1-D convolution with optional SiLU, as in Mamba blocks (`causal_conv1d_fn`).

    out[b, d, t] = act(bias[d] + sum_{j < width} weight[d, j] * x[b, d, t - (width - 1) + j]),   x[b, d, <0] = 0
    act = SiLU (v * sigmoid(v)) when activation is 'silu' or 'swish', the identity when it is None

Each channel d is filtered by its own short kernel (width 2-4) along the sequence, and the sequence is padded
with width - 1 zeros on the left only, so out[..., t] depends on x[..., <= t] (a token never sees the future);
the output has x's shape and dtype. This is the sequence mixer in front of the selective scan in Mamba and
similar state-space blocks; the entry point mirrors the causal-conv1d package's
`causal_conv1d_fn(x, weight, bias=None, activation=None)` (its other arguments, for chunked sequences and
decoding states, are left out). `x` is (batch, dim, seqlen), `weight` (dim, width), `bias` (dim,) or None. The
reference is plain PyTorch: `F.conv1d` with groups = dim and padding width - 1 on both sides, cut to the first
seqlen outputs, then `F.silu`.

Workloads cover widths 2, 3 and 4, with and without bias and activation ('silu' and its alias 'swish'), sizes
straddling block sizes (dim 33 and 65, seqlen 127, 129, 257), a sequence shorter than the kernel (seqlen 3, width 4:
every output sees the padding), a channels-last x (stored as (batch, seqlen, dim) and transposed, as Mamba's layers
hold activations) and x as the first half of a (batch, 2 * dim, seqlen) projection (Mamba's x/z split: a batch
stride of 2 * dim * seqlen). The weight of `check_width3_plain` is transposed (stored as (width, dim)), so a kernel
that addresses the weight as a contiguous array fails there. Values: x normal with a few outliers (+-8, so SiLU sees
large negative and positive inputs), weight uniform in [-1, 1), bias normal.

Tolerance: the defaults. Each output sums at most 4 products in fp32 and is rounded once (the reference, in
bfloat16, rounds the convolution before SiLU and once more after; the difference is within one bf16 ulp).
Measured: the solution uses at most 0.03 of the float32 tolerance and 0.39 of the bfloat16 one (CPU interpreter,
seeds 0-1); the wrong candidates exceed it hundreds of times on the workloads they get wrong.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "causal_conv1d",
    "category": "Convolution",
    "level": 1,
    "signature": "(x, weight, bias=None, activation=None)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["conv1d", "conv2d", "conv3d", "convolution", "cudnn_convolution", "mkldnn_convolution",
                  "conv_depthwise2d", "unfold", "fold", "im2col", "matmul", "mm", "bmm", "einsum", "tensordot",
                  "sum", "silu", "sigmoid", "@"],
    "contract": {"kind": "allclose", "tf32": False},
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"batch": 2, "dim": 8, "seqlen": 40, "width": 4, "bias": True, "activation": "silu"}},
        {"name": "check_width3_plain", "role": "check",
         "params": {"batch": 3, "dim": 33, "seqlen": 129, "width": 3, "bias": False, "activation": None,
                    "weight_layout": "transposed"}},
        {"name": "check_width2_swish", "role": "check",
         "params": {"batch": 1, "dim": 65, "seqlen": 257, "width": 2, "bias": True, "activation": "swish"}},
        {"name": "check_short_sequence", "role": "check",
         "params": {"batch": 2, "dim": 17, "seqlen": 3, "width": 4, "bias": True, "activation": "silu"}},
        {"name": "check_channels_last", "role": "check",
         "params": {"batch": 2, "dim": 48, "seqlen": 127, "width": 4, "bias": True, "activation": "silu",
                    "layout": "channels_last"}},
        {"name": "check_xz_split", "role": "check",
         "params": {"batch": 3, "dim": 24, "seqlen": 100, "width": 4, "bias": False, "activation": "silu",
                    "layout": "xz_split"}},
        {"name": "bench_mamba", "role": "bench",
         "params": {"batch": 16, "dim": 5120, "seqlen": 8192, "width": 4, "bias": True, "activation": "silu"}},
        {"name": "bench_mamba_xz_split", "role": "bench",
         "params": {"batch": 8, "dim": 4096, "seqlen": 8192, "width": 4, "bias": True, "activation": "silu",
                    "layout": "xz_split"}},
    ],
}


def reference(x, weight, bias=None, activation=None):
    if activation not in (None, "silu", "swish"):
        raise ValueError(f"activation must be None, 'silu' or 'swish', not {activation!r}")
    dim, width = weight.shape
    # True fp32 for float32: PyTorch lets cuDNN use TF32 for convolutions by default.
    flags = torch.backends.cudnn
    saved = flags.allow_tf32
    flags.allow_tf32 = False
    try:
        # Padding width - 1 on both sides; the first seqlen outputs are the causal ones.
        out = F.conv1d(x, weight.unsqueeze(1), bias, padding=width - 1, groups=dim)[..., : x.shape[-1]]
    finally:
        flags.allow_tf32 = saved
    return F.silu(out) if activation is not None else out


def make_inputs(workload, dtype, generator):
    p = workload.params
    batch, dim, seqlen = p["batch"], p["dim"], p["seqlen"]
    layout = p.get("layout", "contiguous")
    if layout == "channels_last":
        x = inputs.randn([batch, seqlen, dim], dtype, generator).transpose(1, 2)
    elif layout == "xz_split":
        x = inputs.randn([batch, 2 * dim, seqlen], dtype, generator)[:, :dim]
    else:
        x = inputs.randn([batch, dim, seqlen], dtype, generator)
    x = x.copy_(inputs.with_outliers(x, generator, fraction=2e-3, magnitude=8.0))  # in place: keeps the layout
    w = inputs.uniform([dim, p["width"]], -1.0, 1.0, dtype, generator)
    w = inputs.layout(w, p.get("weight_layout", "contiguous"))
    b = inputs.randn([dim], dtype, generator) if p["bias"] else None
    return {"x": x, "weight": w, "bias": b, "activation": p["activation"]}


def perturb(workload, rng):
    # Batch, channel and sequence sizes move (odd, never more elements); width, bias, activation and layout stay.
    p = workload.params
    batch, dim, seqlen = sizes.shape_near(rng, [p["batch"], p["dim"], p["seqlen"]])
    return {**p, "batch": batch, "dim": dim, "seqlen": seqlen}
