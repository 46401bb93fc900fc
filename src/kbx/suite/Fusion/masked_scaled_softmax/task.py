"""Scale, boolean mask and softmax over the last dim, as applied to attention scores.

    s[..., j] = input[..., j] * scale                  (in fp32)
    s[..., j] = -inf where mask[..., j] is True        (True = masked out, the masked_fill convention)
    out = softmax(s, dim=-1)                           (rounded once to the input's dtype)
    out = 0 on rows where every entry is masked        (softmax of an all -inf row is NaN; defined as zeros here)

The unfused PyTorch composition is `torch.softmax((input.float() * scale).masked_fill(mask, -inf), -1)`
followed by zeroing the fully masked rows and casting back. Note the polarity: a True entry is *excluded*, as
in `masked_fill`, the opposite of the boolean `attn_mask` of `F.scaled_dot_product_attention`. `input` is a
4-D tensor of scores (B, H, Sq, Sk), float16 or float32; `mask` is bool and broadcasts to it (shapes (Sq, Sk),
(B, 1, 1, Sk), (B, 1, Sq, Sk) or the full shape); `scale` is a Python float. The scaled scores are kept in fp32
(as a fused attention kernel would), not rounded to float16 before the softmax. The output has the input's
shape and dtype.

Fusion: a fused kernel reads the scores once, reads the (often broadcast, so cache-resident) mask, and writes
the probabilities once; neither the scaled nor the masked scores are written. Minimum traffic:
2 * numel * itemsize + mask bytes, against ~5x that for the eager chain of scale, masked_fill, softmax and
the row fix-up.

Inputs: raw scores have a per-row offset uniform in [-2000, 2000] and a spread of 8 (about +-250 and 1 after
scaling), so a softmax without the row-max subtraction overflows. Masks: bottom-right-aligned causal (Sq, Sk)
masks (with Sq > Sk the first Sq - Sk rows are entirely masked), padding masks (B, 1, 1, Sk) with a random
valid length per batch entry (batch 0 has none), random masks (B, 1, Sq, Sk) with 30% of entries and 10% of
rows masked, and full-shape random masks. Row lengths 7, 100, 127, 129, 4097 and 20001 (longer than one
on-chip tile), and a transposed (non-contiguous) input.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "masked_scaled_softmax",
    "category": "Fusion",
    "level": 2,
    "signature": "(input, mask, scale)",
    "dtypes": ["float16", "float32"],
    "forbidden": ["softmax", "log_softmax", "softmin", "exp", "exp2", "expm1", "logsumexp", "sum", "nansum",
                  "masked_fill", "masked_scatter", "where", "nan_to_num", "all", "any", "mul", "multiply",
                  "scaled_dot_product_attention", "flex_attention", "sigmoid"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"shape": [2, 2, 8, 100], "mask": "random", "scale": 0.125}},
        {"name": "check_causal_127", "role": "check",
         "params": {"shape": [1, 3, 129, 127], "mask": "causal", "scale": 0.125}},
        {"name": "check_padding_129", "role": "check",
         "params": {"shape": [3, 2, 33, 129], "mask": "padding", "scale": 0.08838834764831845}},
        {"name": "check_random_4097", "role": "check",
         "params": {"shape": [2, 1, 9, 4097], "mask": "random", "scale": 0.125}},
        {"name": "check_full_short", "role": "check",
         "params": {"shape": [2, 3, 65, 7], "mask": "full", "scale": 0.5}},
        {"name": "check_long_rows", "role": "check",
         "params": {"shape": [2, 1, 2, 20001], "mask": "padding", "scale": 0.125}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [1, 2, 127, 129], "mask": "causal", "scale": 0.125, "layout": "transposed"}},
        {"name": "bench_causal", "role": "bench",
         "params": {"shape": [4, 32, 2048, 2048], "mask": "causal", "scale": 0.08838834764831845}},
        {"name": "bench_padding", "role": "bench",
         "params": {"shape": [8, 16, 1024, 4096], "mask": "padding", "scale": 0.125}},
    ],
}


def reference(input, mask, scale):
    scores = (input.float() * scale).masked_fill(mask, float("-inf"))
    out = torch.softmax(scores, dim=-1)
    return out.masked_fill(mask.all(dim=-1, keepdim=True), 0.0).to(input.dtype)


def make_inputs(workload, dtype, generator):
    p = workload.params
    b, h, sq, sk = p["shape"]
    dev = generator.device
    x = inputs.randn([b, h, sq, sk], "float32", generator, scale=8.0)
    x += inputs.uniform([b, h, sq, 1], -2000.0, 2000.0, "float32", generator)
    x = inputs.layout(x.to(inputs.torch_dtype(dtype)), p.get("layout", "contiguous"))
    kind = p["mask"]
    if kind == "causal":
        # Bottom-right aligned: query i sees keys j <= i + (sk - sq); with sq > sk the first rows see nothing.
        q = torch.arange(sq, device=dev)[:, None]
        k = torch.arange(sk, device=dev)[None, :]
        mask = k > q + (sk - sq)
    elif kind == "padding":
        lengths = inputs.randint(0, sk + 1, [b], generator)
        lengths[0] = 0
        mask = (torch.arange(sk, device=dev)[None, :] >= lengths[:, None]).view(b, 1, 1, sk)
    else:
        shape = [b, 1, sq, sk] if kind == "random" else [b, h, sq, sk]
        mask = inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.3
        mask |= inputs.uniform(shape[:-1] + [1], 0.0, 1.0, "float32", generator) < 0.1
        mask.view(-1, sk)[0] = True  # at least one fully masked row
    return {"input": x, "mask": mask, "scale": p["scale"]}
