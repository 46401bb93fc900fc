"""Rotary position embedding (RoPE) applied to queries or keys, rotate-half convention (GPT-NeoX / LLaMA).

    x: (B, S, H, D), D even, h = D / 2;  cos, sin: (S, D)
    rotate_half(x) = cat(-x[..., h:], x[..., :h], dim=-1)
    rotary_embedding(x, cos, sin) = x * cos[None, :, None, :] + rotate_half(x) * sin[None, :, None, :]

so for i < h:  out[..., i] = x[i] cos[s, i] - x[i + h] sin[s, i],  out[..., i + h] = x[i + h] cos[s, i + h]
+ x[i] sin[s, i + h]: the pairs rotated together are (i, i + h), not adjacent elements (the interleaved GPT-J
convention). The unfused PyTorch composition is exactly the formula above (two slices, a negation, a cat,
two multiplies and an add). All tensors share one dtype (float32 or bfloat16; cos and sin already cast to
it, as LLaMA implementations do); the output is a new (B, S, H, D) tensor of that dtype.

Fusion: a fused kernel reads x once and writes the output once, reading each (S, D) row of cos and sin once
for all the heads of a token; rotate_half(x) and the products are never written. Minimum traffic:
2 * numel(x) * itemsize bytes (+ the small tables), against ~10 for the eager composition.

Inputs: cos and sin are real RoPE tables (base 10000, frequencies base^(-2i/D) duplicated across the two
halves) for positions starting at a random offset in [0, 4096), so the angles cover many turns; x is normal.
The two halves of every cos and sin row are equal in every workload (cos[:, :h] == cos[:, h:], likewise sin), as
in every table built this way: a kernel may read only one half, as kernels that take (S, D/2) tables do (the
honest candidate half_table does).
Workloads cover odd sequence lengths and head counts (129, 33, 65; 129 heads, more than one head block),
head dims 64, 128 and 96 (a half of 48, not a power of two), and two non-contiguous layouts of x: a (B, H, S, D)
tensor transposed to (B, S, H, D), and q sliced out of a packed (B, S, 3, H, D) projection.

Tolerance: the defaults. The reference rounds x * cos and rotate_half(x) * sin to bfloat16 before adding them;
a fused kernel that adds in fp32 and rounds once differs from it where the two terms nearly cancel. Measured
(CPU interpreter, seeds 0-5): the solution uses up to 0.47 of the bfloat16 tolerance and matches float32
exactly; the wrong candidates miss by orders of magnitude.

In `check_transposed` the two tables do not share a layout: sin is the second half of one cos|sin cache (rows twice
as far apart) next to a contiguous cos, so a kernel that reads sin through cos's strides fails there; it passed
while the tables were always laid out alike.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "rotary_embedding",
    "category": "Fusion",
    "level": 2,
    "signature": "(x, cos, sin)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["cat", "concat", "concatenate", "stack", "hstack", "roll", "flip", "neg", "negative", "mul",
                  "multiply", "add", "addcmul", "sub", "subtract", "view_as_complex", "view_as_real", "polar",
                  "complex", "einsum", "matmul", "@"],
    "contract": {
        "kind": "allclose",
        "insensitive": {
            "workloads": [
                "check_seq_129", "check_d128", "check_d96", "check_many_heads", "check_transposed",
                "check_packed_qkv",
            ],
            "reason": (
                "the reference forms x cos and rotate(x) sin as separate bf16 products before adding them, as an "
                "unfused kernel does: where the two cancel, their roundings are more than half of the output "
                "(3-4 % of elements in bf16)"
            ),
        },
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1, 8, 2, 64]}},
        {"name": "check_seq_129", "role": "check", "params": {"shape": [2, 129, 3, 64]}},
        {"name": "check_d128", "role": "check", "params": {"shape": [1, 33, 5, 128]}},
        {"name": "check_d96", "role": "check", "params": {"shape": [1, 65, 4, 96]}},
        {"name": "check_many_heads", "role": "check", "params": {"shape": [1, 5, 129, 32]}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [2, 65, 3, 64], "layout": "bhsd", "sin_table": "cache_half"}},
        {"name": "check_packed_qkv", "role": "check", "params": {"shape": [1, 33, 4, 128], "layout": "packed"}},
        {"name": "bench", "role": "bench", "params": {"shape": [16, 4096, 32, 128]}},
        {"name": "bench_packed_qkv", "role": "bench", "params": {"shape": [8, 4096, 32, 128], "layout": "packed"}},
    ],
}


def reference(x, cos, sin):
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos[None, :, None, :] + rotated * sin[None, :, None, :]


def make_inputs(workload, dtype, generator):
    p = workload.params
    b, s, h, d = p["shape"]
    dt = inputs.torch_dtype(dtype)
    layout = p.get("layout", "bshd")
    if layout == "packed":
        x = inputs.randn([b, s, 3, h, d], dtype, generator)[:, :, 0]  # q of a fused QKV projection
    elif layout == "bhsd":
        x = inputs.randn([b, h, s, d], dtype, generator).transpose(1, 2)
    else:
        x = inputs.randn([b, s, h, d], dtype, generator)
    start = inputs.randint(0, 4096, [1], generator).to(torch.float32)
    positions = start + torch.arange(s, device=generator.device, dtype=torch.float32)
    inv_freq = 10000.0 ** (-torch.arange(0, d, 2, device=generator.device, dtype=torch.float32) / d)
    angles = positions[:, None] * inv_freq[None, :]
    angles = torch.cat((angles, angles), dim=-1)  # (S, D): the two halves share frequencies
    cos, sin = angles.cos().to(dt), angles.sin().to(dt)
    if p.get("sin_table") == "cache_half":
        # sin read from the second half of one (S, 2D) cos|sin cache (row stride 2D) next to a contiguous cos.
        sin = torch.cat((cos, sin), dim=-1)[:, sin.shape[-1]:]
    return {"x": x, "cos": cos, "sin": sin}


def perturb(workload, rng):
    # Batch, sequence and heads move (never more elements); the head dim and the layout stay.
    p = workload.params
    return {**p, "shape": sizes.shape_near(rng, p["shape"], keep=[-1])}
