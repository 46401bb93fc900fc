"""Scaled dot-product attention (the forward pass of multi-head attention), without mask or dropout.

    S = query @ key^T / sqrt(D)                     (B, H, Sq, Sk)
    S[i, j] = -inf where is_causal and j > i        (top-left aligned causal mask)
    out = softmax(S, dim=-1) @ value                (B, H, Sq, D)

Mirrors `torch.nn.functional.scaled_dot_product_attention(query, key, value, is_causal=is_causal)` with the
default scale 1/sqrt(D), no attn_mask and dropout_p=0. query is (B, H, Sq, D), key and value (B, H, Sk, D), all
float16; the output is (B, H, Sq, D) float16. The head dim D is at most 128 and need not be a power of two. When
is_causal and Sq != Sk the mask is PyTorch's top-left aligned one, `torch.ones(Sq, Sk).tril()`: query i sees
keys 0..i (not the bottom-right alignment of some flash-attention libraries), so every query row sees at least
key 0. Workloads cover sequence lengths that are not multiples of a block size (129, 200, 77), key/value lengths
different from the query length (causal and not), head dims 32, 64, 80 (not a power of two: the scale is
1/sqrt(80)) and 128, and non-contiguous layouts: (B, S, H, D) tensors transposed to (B, H, S, D) and q/k/v
sliced out of one packed (B, S, 3, H, D) projection, with two batch entries (a batch stride other than H times
the head stride: a kernel that steps a merged batch-and-head index by the head stride passed every workload of
one batch entry). Scores are large enough (std ~1.4) that the softmax is far
from uniform and its running maximum keeps changing along a row.

q, k and v do not always share a layout: in `check_short_kv_d32` value is a (B, S, H, D) view next to contiguous
(B, H, S, D) query and key, in `check_causal_q_long_bshd` key is contiguous next to (B, S, H, D) views; a kernel
that reads one operand through another's strides passed while they always shared one.
"""

import math

import torch.nn.functional as F

from kbx.tasks import inputs, sizes, work

TASK = {
    "name": "scaled_dot_product_attention",
    "category": "Fusion",
    "level": 2,
    "signature": "(query, key, value, is_causal=False)",
    "dtypes": ["float16"],
    "forbidden": ["scaled_dot_product_attention", "multi_head_attention_forward", "MultiheadAttention",
                  "flex_attention", "softmax", "log_softmax", "exp", "exp2", "matmul", "rmatmul", "mm", "bmm", "mv",
                  "dot", "vdot", "inner", "einsum", "tensordot", "addmm", "addbmm", "baddbmm", "addmv", "linear",
                  "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum", "@"],
    "contract": {
        "kind": "allclose", "tolerance": {"float16": [4e-3, 4e-3]},
        "rounded_inputs": {
            "inputs": ["query"],
            "reason": (
                "an honest kernel may fold the softmax scale into the query and round the product "
                "back to the task dtype once, as Triton's fused-attention tutorial and PyTorch's math "
                "backend on a GPU do: every score then moves by up to u_out of itself"
            ),
        },
    },
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"batch": 1, "heads": 2, "s_q": 64, "s_kv": 64, "head_dim": 64, "is_causal": False}},
        {"name": "smoke_causal", "role": "smoke",
         "params": {"batch": 1, "heads": 2, "s_q": 64, "s_kv": 64, "head_dim": 64, "is_causal": True}},
        {"name": "check_tail", "role": "check",
         "params": {"batch": 2, "heads": 1, "s_q": 129, "s_kv": 129, "head_dim": 64, "is_causal": False}},
        {"name": "check_causal_tail", "role": "check",
         "params": {"batch": 1, "heads": 1, "s_q": 200, "s_kv": 200, "head_dim": 128, "is_causal": True}},
        {"name": "check_cross_bshd", "role": "check",
         "params": {"batch": 1, "heads": 2, "s_q": 129, "s_kv": 200, "head_dim": 128, "is_causal": False,
                    "layout": "bshd"}},
        {"name": "check_short_kv_d32", "role": "check",
         "params": {"batch": 1, "heads": 2, "s_q": 200, "s_kv": 77, "head_dim": 32, "is_causal": False,
                    "value_layout": "bshd"}},
        {"name": "check_causal_q_short", "role": "check",
         "params": {"batch": 1, "heads": 1, "s_q": 129, "s_kv": 200, "head_dim": 64, "is_causal": True}},
        {"name": "check_causal_q_long_bshd", "role": "check",
         "params": {"batch": 1, "heads": 2, "s_q": 200, "s_kv": 129, "head_dim": 64, "is_causal": True,
                    "layout": "bshd", "key_layout": "bhsd"}},
        {"name": "check_packed_causal_d32", "role": "check",
         "params": {"batch": 2, "heads": 2, "s_q": 129, "s_kv": 129, "head_dim": 32, "is_causal": True,
                    "layout": "packed"}},
        {"name": "check_d80", "role": "check",
         "params": {"batch": 1, "heads": 2, "s_q": 129, "s_kv": 77, "head_dim": 80, "is_causal": False}},
        {"name": "bench_d128", "role": "bench",
         "params": {"batch": 8, "heads": 16, "s_q": 4096, "s_kv": 4096, "head_dim": 128, "is_causal": False}},
        {"name": "bench_d128_causal", "role": "bench",
         "params": {"batch": 8, "heads": 16, "s_q": 4096, "s_kv": 4096, "head_dim": 128, "is_causal": True}},
        {"name": "bench_d64_causal", "role": "bench",
         "params": {"batch": 16, "heads": 32, "s_q": 4096, "s_kv": 4096, "head_dim": 64, "is_causal": True}},
    ],
}


def reference(query, key, value, is_causal=False):
    return F.scaled_dot_product_attention(query, key, value, is_causal=is_causal)


def truth_rows(query, key, value, is_causal=False):
    """Each batch element's output depends on its own query, key and value alone: the float64 truth may run a block
    of them at a time."""
    return ("query", "key", "value")


def truth_row_elements(query, key, value, is_causal=False):
    """The float64 reference holds a batch element's scores, their softmax and a mask at once: 3 H S_q S_kv."""
    *_, heads, s_q, _ = query.shape
    return 3 * heads * s_q * key.shape[-2]


def flops(query, key, value, is_causal=False):
    """The speed of light's work: torch's FLOP counter charges a causal call for every score, masked or not; a
    kernel that skips the masked half does half of that."""
    *batch, s_q, d = query.shape
    return work.attention_flops(math.prod(batch), s_q, key.shape[-2], d, value.shape[-1], causal=is_causal)


def make_inputs(workload, dtype, generator):
    p = workload.params
    b, h, sq, sk, d = p["batch"], p["heads"], p["s_q"], p["s_kv"], p["head_dim"]
    layout = p.get("layout", "bhsd")
    if layout == "packed":
        # One fused QKV projection (B, S, 3, H, D); q, k and v are strided views of it.
        assert sq == sk
        qkv = inputs.randn([b, sq, 3, h, d], dtype, generator, scale=1.2)
        qkv[:, :, 2] += 0.5
        q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
    else:
        # bhsd: (B, H, S, D) contiguous; bshd: (B, S, H, D) activations viewed as (B, H, S, D). key_layout and
        # value_layout override the layout for one operand, so q, k and v do not always share one.
        def draw(s, name, **kw):
            if p.get(name + "_layout", layout) == "bshd":
                return inputs.randn([b, s, h, d], dtype, generator, **kw).transpose(1, 2)
            return inputs.randn([b, h, s, d], dtype, generator, **kw)

        q = draw(sq, "query", scale=1.2)
        k = draw(sk, "key", scale=1.2)
        v = draw(sk, "value", offset=0.5)
    return {"query": q, "key": k, "value": v, "is_causal": p["is_causal"]}


def perturb(workload, rng):
    # Batch, heads and sequence lengths move; neither the score entries nor the q/k/v elements grow. head_dim,
    # is_causal and layout stay; the packed layout keeps s_q == s_kv.
    p = workload.params
    if p.get("layout") == "packed":
        cost = lambda d: (d[0] * d[1] * d[2] ** 2, d[0] * d[1] * d[2])
        b, h, sq = sizes.shape_near(rng, [p["batch"], p["heads"], p["s_q"]], cost=cost)
        sk = sq
    else:
        cost = lambda d: (math.prod(d), d[0] * d[1] * (d[2] + 2 * d[3]))
        b, h, sq, sk = sizes.shape_near(rng, [p["batch"], p["heads"], p["s_q"], p["s_kv"]], cost=cost)
    return {**p, "batch": b, "heads": h, "s_q": sq, "s_kv": sk}
