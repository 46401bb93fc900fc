"""Per-head RMS norm of queries and keys followed by rotary position embedding (Qwen3 / OLMo-style QK-norm).

    q, k: (B, S, Hq, D) and (B, S, Hk, D), D even, h = D / 2;  q_weight, k_weight: (D,);  cos, sin: (S, h)
    n = x / sqrt(mean(x^2 over the head dim D) + eps) * weight            for every head vector x of q or k
    out[..., i]     = n[i] cos[s, i] - n[i + h] sin[s, i]                      i < h
    out[..., i + h] = n[i + h] cos[s, i] + n[i] sin[s, i]
    qk_rms_norm_rotary(q, k, q_weight, k_weight, cos, sin, eps) = (out of q, out of k)

The norm is per head (over the last dim only, with each tensor's own weight); the rotation is the rotate-half
(GPT-NeoX / LLaMA-HF) one, which turns the pair (i, i + h) by the angle of frequency i at position s, not
adjacent pairs (the interleaved GPT-J convention). The unfused PyTorch composition is
`F.rms_norm(x, (D,), weight, eps)` followed by `x * cos + rotate_half(x) * sin` with the tables duplicated
across the two halves. The reference evaluates it in fp32 with one final rounding, so it does not depend on
how a PyTorch version rounds inside rms_norm. q, k and the weights share one dtype (bfloat16 or float16); cos
and sin are fp32 tables of shape (S, D / 2), as a RoPE cache stores them; the outputs are new contiguous
tensors of q's and k's shapes and dtype. Hk may differ from Hq (grouped-query attention).

Fusion: a fused kernel reads each head vector once, reduces its sum of squares in registers and writes the
rotated result once; the normalised tensor, the fp32 copies and rotate_half(x) are never written. Minimum
traffic: 2 * (numel(q) + numel(k)) * itemsize bytes (+ the small tables), against ~15 times numel * 4 bytes for
the eager fp32 composition.

Inputs: every head vector has its own scale (2^-2 to 2^2, times `scale`), a small offset and +-(8 x its scale)
outliers in about 1% of the elements, so the RMS differs per head and is sometimes dominated by one element;
the weights are around 1 with spread 0.5 (some negative). In `check_small_rows` the scale is 2e-3, so the mean
square (~4e-6) is comparable to the default eps = 1e-6; `check_eps` passes eps = 1e-2 with a scale of 0.05.
cos and sin are real RoPE tables (base 10000) for positions starting at a random offset in [0, 4096).
Workloads cover odd sequence lengths and head counts, head dims 64, 128 and 96 (a half of 48, not a power of
two, in a packed layout), Hk < Hq and Hk = Hq, and three layouts: contiguous; `packed`, where q and k are
slices along the last dim of one fused (B, S, (Hq + 2 Hk) * D) QKV projection, viewed as heads (a token stride
of (Hq + 2 Hk) * D); and `bhsd`, (B, H, S, D) tensors transposed to (B, S, H, D).

Tolerance: the defaults. The kernel and the reference both compute in fp32 and round once; they differ by a
rounding flip at most. Measured (CPU interpreter, seeds 0-3): the solution uses at most 0.42 of the float16
tolerance and 0.28 of the bfloat16 one (a one-ulp difference); the wrong candidates miss by 35x or more.

In `check_transposed` the two tables do not share a layout: sin is the second half of one cos|sin cache (rows twice
as far apart) next to a contiguous cos, so a kernel that reads sin through cos's strides fails there; it passed
while the tables were always laid out alike.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "qk_rms_norm_rotary",
    "category": "Fusion",
    "level": 2,
    "signature": "(q, k, q_weight, k_weight, cos, sin, eps=1e-06)",
    "dtypes": ["bfloat16", "float16"],
    "forbidden": ["rms_norm", "layer_norm", "normalize", "norm", "vector_norm", "mean", "nanmean", "sum", "nansum",
                  "var", "std", "rsqrt", "sqrt", "pow", "square", "mul", "multiply", "addcmul", "div", "divide",
                  "cat", "concat", "concatenate", "stack", "hstack", "roll", "flip", "neg", "negative", "add",
                  "sub", "subtract", "view_as_complex", "view_as_real", "polar", "complex", "einsum", "matmul",
                  "@"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1, 8, 2, 2, 64]}},
        {"name": "check_seq_129", "role": "check", "params": {"shape": [1, 129, 3, 1, 64]}},
        {"name": "check_d128_gqa", "role": "check", "params": {"shape": [1, 33, 8, 2, 128]}},
        {"name": "check_d96_packed", "role": "check", "params": {"shape": [1, 33, 5, 5, 96], "layout": "packed"}},
        {"name": "check_packed_qkv", "role": "check", "params": {"shape": [2, 17, 6, 2, 128], "layout": "packed"}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [2, 33, 4, 2, 64], "layout": "bhsd", "sin_table": "cache_half"}},
        {"name": "check_small_rows", "role": "check", "params": {"shape": [1, 65, 4, 2, 64], "scale": 2e-3}},
        {"name": "check_eps", "role": "check",
         "params": {"shape": [1, 33, 4, 4, 128], "scale": 0.05, "eps": 1e-2, "layout": "packed"}},
        {"name": "bench_packed_qkv", "role": "bench", "params": {"shape": [16, 4096, 32, 8, 128], "layout": "packed"}},
        {"name": "bench", "role": "bench", "params": {"shape": [8, 4096, 32, 32, 128]}},
    ],
}


def reference(q, k, q_weight, k_weight, cos, sin, eps=1e-06):
    c = cos.float()[None, :, None, :]
    s = sin.float()[None, :, None, :]
    outs = []
    for x, weight in ((q, q_weight), (k, k_weight)):
        n = x.float()
        n = n * torch.rsqrt(n.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.float()
        n1, n2 = n.chunk(2, dim=-1)
        outs.append(torch.cat((n1 * c - n2 * s, n2 * c + n1 * s), dim=-1).to(x.dtype))
    return tuple(outs)


def _heads(shape, scale, dtype, generator):
    """Head vectors with a per-vector scale, a small offset and outliers, in fp32 before the final cast."""
    x = inputs.randn(shape, "float32", generator, offset=0.1)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=8.0)
    row_scale = scale * torch.exp2(inputs.uniform(list(shape[:-1]) + [1], -2.0, 2.0, "float32", generator))
    return (x * row_scale).to(inputs.torch_dtype(dtype))


def make_inputs(workload, dtype, generator):
    p = workload.params
    b, s, hq, hk, d = p["shape"]
    scale = p.get("scale", 1.0)
    layout = p.get("layout", "contiguous")
    if layout == "packed":  # q and k sliced out of one fused QKV projection (v is the rest)
        qkv = _heads([b, s, hq + 2 * hk, d], scale, dtype, generator).reshape(b, s, (hq + 2 * hk) * d)
        q = qkv[..., : hq * d].unflatten(-1, (hq, d))
        k = qkv[..., hq * d: (hq + hk) * d].unflatten(-1, (hk, d))
    elif layout == "bhsd":
        q = _heads([b, hq, s, d], scale, dtype, generator).transpose(1, 2)
        k = _heads([b, hk, s, d], scale, dtype, generator).transpose(1, 2)
    else:
        q = _heads([b, s, hq, d], scale, dtype, generator)
        k = _heads([b, s, hk, d], scale, dtype, generator)
    start = inputs.randint(0, 4096, [1], generator).to(torch.float32)
    positions = start + torch.arange(s, device=generator.device, dtype=torch.float32)
    inv_freq = 10000.0 ** (-torch.arange(0, d, 2, device=generator.device, dtype=torch.float32) / d)
    angles = positions[:, None] * inv_freq[None, :]  # (S, D / 2)
    sin = angles.sin()
    if p.get("sin_table") == "cache_half":
        # sin read from the second half of one (S, D) cos|sin cache (row stride D) next to a contiguous cos.
        sin = torch.cat((angles.cos(), sin), dim=-1)[:, sin.shape[-1]:]
    return {
        "q": q,
        "k": k,
        "q_weight": inputs.randn([d], dtype, generator, scale=0.5, offset=1.0),
        "k_weight": inputs.randn([d], dtype, generator, scale=0.5, offset=1.0),
        "cos": angles.cos(),
        "sin": sin,
        "eps": p.get("eps", 1e-06),
    }


def perturb(workload, rng):
    # Batch, sequence and both head counts move (never more elements); the head dim, layout, scale and eps stay.
    p = workload.params
    elements = lambda x: x[0] * x[1] * (x[2] + x[3]) * x[4]  # numel(q) + numel(k)
    return {**p, "shape": sizes.shape_near(rng, p["shape"], keep=[-1], cost=elements)}
