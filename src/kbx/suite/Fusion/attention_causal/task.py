"""Causal grouped-query attention (the forward pass of a decoder's self-attention with GQA/MQA).

    g = Hq / Hkv                                         (query heads per key/value head)
    S[b, h] = query[b, h] @ key[b, h // g]^T / sqrt(D)   (B, Hq, Sq, Sk)
    S[b, h, i, j] = -inf where j > i                     (top-left aligned causal mask)
    out[b, h] = softmax(S[b, h], dim=-1) @ value[b, h // g]

Mirrors `torch.nn.functional.scaled_dot_product_attention(query, key, value, is_causal=True, enable_gqa=True)`
with the default scale 1/sqrt(D), no attn_mask and no dropout. `query` is (B, Hq, Sq, D); `key` and `value` are
(B, Hkv, Sk, D) with Hq a multiple of Hkv: query heads h = j*g .. j*g + g - 1 share key/value head j (the
grouping of repeat_interleave, not of repeat). The output is (B, Hq, Sq, D) in the inputs' dtype (float16 or
bfloat16). When Sq != Sk the mask is PyTorch's top-left aligned one, `torch.ones(Sq, Sk).tril()`: query i sees
keys 0..i (not the bottom-right alignment of some flash-attention libraries), so every query row sees key 0.
The point of the task is fusion: the (Sq, Sk) scores and probabilities never reach memory (a flash-attention
kernel keeps a running softmax per row), and the shared key/value heads are read in place, never expanded
to Hq heads.

Workloads cover group sizes 1, 2, 3 and 4 (MQA: one key/value head for four query heads), sequence lengths
that are not multiples of a block size (129, 200, 77), Sk > Sq and Sk < Sq, head dims 32, 64 and 128, and
(B, S, H, D) tensors transposed to (B, H, S, D), two batch entries of them (a batch stride other than H times the
head stride: a kernel that steps a merged batch-and-head index by the head stride passed every workload of one
batch entry). Scores have a standard deviation of about 1.4, so the softmax is far from uniform and its running
maximum keeps changing along a row; value has an offset of 0.5.

Tolerance: float16 4e-3 + 4e-3 |ref| (as for scaled_dot_product_attention: the probabilities are rounded to
float16 before the P @ V product, and PyTorch's kernels differ in how they round); bfloat16 the default
1.6e-2 + 1.6e-2 |ref|. Measured (CPU interpreter, seeds 0-2): the solution uses at most 0.20 of the
float16 tolerance and 0.32 of the bfloat16 one; the wrong candidates exceed it by far.

q, k and v do not always share a layout: in `check_g3_kv_longer` value is a (B, S, H, D) view next to contiguous
(B, H, S, D) query and key, in `check_q_longer_bshd` key is contiguous next to (B, S, H, D) views; a kernel that
reads one operand through another's strides passed while they always shared one.
"""


import torch.nn.functional as F

from kbx.tasks import inputs, sizes, work

TASK = {
    "name": "attention_causal",
    "category": "Fusion",
    "level": 2,
    "signature": "(query, key, value)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["scaled_dot_product_attention", "multi_head_attention_forward", "MultiheadAttention",
                  "flex_attention", "softmax", "log_softmax", "exp", "exp2", "matmul", "rmatmul", "mm", "bmm", "mv",
                  "dot", "vdot", "inner", "einsum", "tensordot", "addmm", "addbmm", "baddbmm", "addmv", "linear",
                  "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum", "@"],
    "contract": {
        "kind": "allclose", "tolerance": {"float16": [4e-3, 4e-3]},
        "insensitive": {
            "workloads": ["check_mqa_d128", "check_g3_kv_longer", "check_q_longer_bshd"],
            "reason": (
                "in bfloat16 the query's rounding to the dtype (rounded_inputs) moves every score by up to 2^-8 of "
                "itself; where an output is a nearly cancelling mean of values of both signs, the truth's response "
                "to that is more than half of it on 1.1-1.4 % of the elements"
            ),
        },
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
         "params": {"batch": 1, "q_heads": 4, "kv_heads": 2, "s_q": 64, "s_kv": 64, "head_dim": 64}},
        {"name": "check_tail_g2", "role": "check",
         "params": {"batch": 1, "q_heads": 4, "kv_heads": 2, "s_q": 129, "s_kv": 129, "head_dim": 64}},
        {"name": "check_mqa_d128", "role": "check",
         "params": {"batch": 1, "q_heads": 4, "kv_heads": 1, "s_q": 77, "s_kv": 77, "head_dim": 128}},
        {"name": "check_g3_kv_longer", "role": "check",
         "params": {"batch": 1, "q_heads": 6, "kv_heads": 2, "s_q": 77, "s_kv": 200, "head_dim": 32,
                    "value_layout": "bshd"}},
        {"name": "check_q_longer_bshd", "role": "check",
         "params": {"batch": 2, "q_heads": 4, "kv_heads": 2, "s_q": 129, "s_kv": 77, "head_dim": 64,
                    "layout": "bshd", "key_layout": "bhsd"}},
        {"name": "check_mha", "role": "check",
         "params": {"batch": 2, "q_heads": 1, "kv_heads": 1, "s_q": 129, "s_kv": 129, "head_dim": 32}},
        {"name": "bench_gqa8", "role": "bench",
         "params": {"batch": 8, "q_heads": 32, "kv_heads": 8, "s_q": 4096, "s_kv": 4096, "head_dim": 128}},
        {"name": "bench_mqa_d64", "role": "bench",
         "params": {"batch": 16, "q_heads": 16, "kv_heads": 1, "s_q": 4096, "s_kv": 4096, "head_dim": 64}},
    ],
}


def reference(query, key, value):
    return F.scaled_dot_product_attention(query, key, value, is_causal=True, enable_gqa=True)


def flops(query, key, value):
    """The speed of light's work: the causal half of the scores, for every query head (torch's FLOP counter
    charges every score, masked or not)."""
    b, hq, s_q, d = query.shape
    return work.attention_flops(b * hq, s_q, key.shape[-2], d, value.shape[-1], causal=True)


def make_inputs(workload, dtype, generator):
    p = workload.params
    b, hq, hkv, sq, sk, d = p["batch"], p["q_heads"], p["kv_heads"], p["s_q"], p["s_kv"], p["head_dim"]
    layout = p.get("layout", "bhsd")

    def draw(s, heads, name, **kw):
        # bhsd: (B, H, S, D) contiguous; bshd: (B, S, H, D) activations viewed as (B, H, S, D). key_layout and
        # value_layout override the layout for one operand, so q, k and v do not always share one.
        if p.get(name + "_layout", layout) == "bshd":
            return inputs.randn([b, s, heads, d], dtype, generator, **kw).transpose(1, 2)
        return inputs.randn([b, heads, s, d], dtype, generator, **kw)

    q = draw(sq, hq, "query", scale=1.2)
    k = draw(sk, hkv, "key", scale=1.2)
    v = draw(sk, hkv, "value", offset=0.5)
    return {"query": q, "key": k, "value": v}


def perturb(workload, rng):
    # Batch and sequence lengths move; neither the score entries nor the q/k/v elements grow. Head counts (the
    # grouping the workload exercises), head_dim and layout stay.
    p = workload.params
    hq, hkv = p["q_heads"], p["kv_heads"]
    cost = lambda d: (d[0] * hq * d[1] * d[2], d[0] * (hq * d[1] + 2 * hkv * d[2]))
    b, sq, sk = sizes.shape_near(rng, [p["batch"], p["s_q"], p["s_kv"]], cost=cost)
    return {**p, "batch": b, "s_q": sq, "s_kv": sk}
