"""Attention probabilities: `torch.softmax(torch.bmm(query, key.transpose(1, 2)) * scale, dim=-1)`.

    s[b, i, j] = scale * sum_d query[b, i, d] * key[b, j, d]
    out[b, i, j] = exp(s[b, i, j] - max_j' s[b, i, j']) / sum_j'' exp(s[b, i, j''] - max_j' s[b, i, j'])

Written with `torch.bmm`, `*` and `torch.softmax(dim=-1)`: `query` is (B, M, D), `key` is (B, N, D), `scale` is
a Python float, and the output is the (B, M, N) matrix of softmax weights in the inputs' dtype (float32 or
float16), each row summing to 1. The point of the task is fusion: a fused kernel never writes the raw or scaled
scores to memory. It computes score tiles on the fly, keeps each row's running maximum and denominator, and
writes only the normalised probabilities, where the unfused composition writes and re-reads the (B, M, N)
scores twice before writing the output.

Workloads cover key lengths that straddle block sizes (129, 200, 77), head dims 64, 32 and 40 (not a power of
two), query and key given as transposed (S, B, D) -> (B, S, D) views, and scales that are not powers of two.
Values: query and key are normal with standard deviation 1.2 (key with an offset of 0.3), so the scores spread
over several units per row. One sharp workload uses integer query and key entries in [-2, 2] and scale 4: its
scores are exact integers (in float16 too) that reach +-200, so exp overflows float32 (a softmax without max
subtraction returns NaN), rows are nearly one-hot and tied maxima are common; being exact, they add no
rounding error to the reference however large they are.

Tolerance: float32 |out - ref| <= 1e-7 + 1e-5 |ref| (probabilities are mostly ~1/N, so the default atol of 1e-5
would hide errors of several percent); float16 1e-5 + 1e-2 |ref|. The float16 reference rounds the raw scores
(|s / scale| up to ~40, an ulp of 2^-5) and the scaled scores to float16 before the softmax, an error of up to
~5e-3 in a score and ~0.5% in a probability, which a fused kernel (fp32 scores) does not make; rtol 1e-2 covers
that. Measured (CPU interpreter, seeds 0-2): the solution uses at most 0.18 of the float32 tolerance and
0.50 of the float16 one (the float16 reference is itself up to 0.48 of it away from an fp64 evaluation, the
solution 0.05); the wrong candidates exceed it by far or return NaN.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "bmm_softmax",
    "category": "Fusion",
    "level": 2,
    "signature": "(query, key, scale)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@", "softmax", "log_softmax", "softmin", "logsumexp", "exp", "exp2", "scaled_dot_product_attention",
                  "sigmoid"],
    "contract": {
        "kind": "allclose", "reduction_length": "d", "tensor_cores": True,
        "tolerance": {"float32": [1e-7, 1e-5], "float16": [1e-5, 1e-2]},
        "tf32": False,
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"batch": 2, "m": 64, "n": 64, "d": 32, "scale": 0.17}},
        {"name": "check_tail", "role": "check", "params": {"batch": 3, "m": 127, "n": 129, "d": 64, "scale": 0.125}},
        {"name": "check_d40", "role": "check", "params": {"batch": 2, "m": 65, "n": 200, "d": 40, "scale": 0.158}},
        {"name": "check_transposed", "role": "check",
         "params": {"batch": 2, "m": 129, "n": 77, "d": 32, "scale": 0.2, "layout": "sbd"}},
        {"name": "check_sharp", "role": "check",
         "params": {"batch": 2, "m": 33, "n": 129, "d": 64, "scale": 4.0, "values": "integer"}},
        {"name": "bench", "role": "bench", "params": {"batch": 128, "m": 2048, "n": 2048, "d": 64, "scale": 0.125}},
    ],
}


def reference(query, key, scale):
    return torch.softmax(torch.bmm(query, key.transpose(1, 2)) * scale, dim=-1)


def make_inputs(workload, dtype, generator):
    p = workload.params
    b, m, n, d = p["batch"], p["m"], p["n"], p["d"]
    if p.get("values") == "integer":
        # Small integers and a power-of-two scale: every score is an exact integer in any dtype, so even
        # scores in the hundreds carry no rounding error, and ties are common.
        q = inputs.randint(-2, 3, [b, m, d], generator).to(inputs.torch_dtype(dtype))
        k = inputs.randint(-2, 3, [b, n, d], generator).to(inputs.torch_dtype(dtype))
    elif p.get("layout", "bsd") == "sbd":
        # Sequence-major activations (S, B, D) viewed as (B, S, D).
        q = inputs.randn([m, b, d], dtype, generator, scale=1.2).transpose(0, 1)
        k = inputs.randn([n, b, d], dtype, generator, scale=1.2, offset=0.3).transpose(0, 1)
    else:
        q = inputs.randn([b, m, d], dtype, generator, scale=1.2)
        k = inputs.randn([b, n, d], dtype, generator, scale=1.2, offset=0.3)
    return {"query": q, "key": k, "scale": p["scale"]}


def perturb(workload, rng):
    # Batch and both sequence lengths move (no more scores or q/k elements); head dim, scale and layout stay.
    p = workload.params
    cost = lambda s: (math.prod(s), s[0] * (s[1] + s[2]))
    b, m, n = sizes.shape_near(rng, [p["batch"], p["m"], p["n"]], cost=cost)
    return {**p, "batch": b, "m": m, "n": n}
