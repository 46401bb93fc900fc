"""The front half of a SwiGLU MLP: `F.silu(F.linear(input, w_gate)) * F.linear(input, w_up)`.

    g[..., n] = sum_k input[..., k] * w_gate[n, k]          (gate projection)
    u[..., n] = sum_k input[..., k] * w_up[n, k]            (up projection)
    out = silu(g) * u = g * sigmoid(g) * u

Mirrors the gated MLP of LLaMA-style transformers (`act_fn(gate_proj(x)) * up_proj(x)`, both projections
without bias) written with `torch.nn.functional.linear` and `torch.nn.functional.silu`: `input` is (M, K) or
(B, S, K), `w_gate` and `w_up` are (N, K), and the output has the input's leading dimensions, N features and
the input's dtype (float16 or bfloat16). The products are summed in fp32. The point of the task is fusion: one
kernel computes both projections of an output tile from the same input tiles and multiplies them in
registers, so the gate and up activations g and u (two M x N tensors) and silu(g) are never written to memory;
the unfused composition writes and re-reads each of them.

Workloads cover 2-D and 3-D inputs, odd sizes that straddle tile boundaries (127, 129, 65, 33), a column-major
input with a transposed gate weight, and gate and up weights interleaved row by row in one packed (2N, K)
tensor (w_gate = packed[0::2], w_up = packed[1::2], each with a row stride of 2K). Values: `input` is normal
with a few outliers (+-6), both weights are normal with standard deviation 1.5 / sqrt(K), so g spreads over
about [-6, 6]: silu's minimum near g = -1.28, its saturated negative tail and its linear positive side are all
exercised, and swapping gate and up (or dropping the factor g of silu) changes most outputs. Check workloads
keep K <= 129; the matmul task covers long reductions.

Tolerance: float16 |out - ref| <= 5e-4 + 3e-3 |ref|; bfloat16 2e-2 + 2e-2 |ref|. The reference rounds g and u
to the output dtype, rounds silu(g) again and rounds the product; a fused kernel that keeps g, u and silu(g) in
fp32 and rounds once differs from it by up to about three half-ulps. Measured (CPU interpreter, seeds 0-2): the
solution uses at most 0.59 of the float16 tolerance and 0.67 of the bfloat16 one, almost all of it the
reference's own rounding (the reference is up to 0.51 of the tolerance away from an fp64 evaluation, the
solution 0.17); the wrong candidates exceed it by far.

`check_3d`'s input holds the first 33 positions of longer sequences (`inputs.seq_slice`), so its leading dims do not
merge: a kernel that flattens them into rows by stepping the row stride, with no reshape, reads the wrong rows after
the first sequence.
"""

import math

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "linear_silu_mul",
    "category": "Fusion",
    "level": 2,
    "signature": "(input, w_gate, w_up)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@", "silu", "swish", "sigmoid", "expit", "logsigmoid", "glu", "exp", "exp2", "tanh"],
    "contract": {
        "kind": "allclose", "reduction_length": "input[-1]", "tensor_cores": True,
        "tolerance": {"float16": [5e-4, 3e-3], "bfloat16": [2e-2, 2e-2]},
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"input": [64, 96], "N": 80}},
        {"name": "check_odd", "role": "check", "params": {"input": [127, 129], "N": 65}},
        {"name": "check_3d", "role": "check", "params": {"input": [3, 33, 65], "N": 127, "input_layout": "seq_slice"}},
        {"name": "check_transposed", "role": "check",
         "params": {"input": [129, 127], "N": 65, "input_layout": "transposed", "gate_layout": "transposed"}},
        {"name": "check_packed", "role": "check", "params": {"input": [65, 127], "N": 129, "packed": True}},
        {"name": "bench_2d", "role": "bench", "params": {"input": [8192, 4096], "N": 14336}},
        {"name": "bench_3d", "role": "bench", "params": {"input": [4, 2048, 4096], "N": 11008}},
    ],
}


def reference(input, w_gate, w_up):
    # Ask cuBLAS to sum in fp32 throughout: by default PyTorch lets it add split-K partial sums in fp16/bf16.
    flags = torch.backends.cuda.matmul
    allowed = flags.allow_fp16_reduced_precision_reduction, flags.allow_bf16_reduced_precision_reduction
    flags.allow_fp16_reduced_precision_reduction = flags.allow_bf16_reduced_precision_reduction = False
    try:
        return F.silu(F.linear(input, w_gate)) * F.linear(input, w_up)
    finally:
        flags.allow_fp16_reduced_precision_reduction, flags.allow_bf16_reduced_precision_reduction = allowed


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["input"]
    K, N = shape[-1], p["N"]
    x = inputs.randn(shape, dtype, generator)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=6.0)
    if p.get("packed", False):
        # One (2N, K) gate/up projection with the two weights interleaved row by row.
        packed = inputs.randn([2 * N, K], dtype, generator, scale=1.5 / K**0.5)
        w_gate, w_up = packed[0::2], packed[1::2]
    else:
        w_gate = inputs.randn([N, K], dtype, generator, scale=1.5 / K**0.5)
        w_up = inputs.randn([N, K], dtype, generator, scale=1.5 / K**0.5)
    return {
        "input": inputs.layout(x, p.get("input_layout", "contiguous")),
        "w_gate": inputs.layout(w_gate, p.get("gate_layout", "contiguous")),
        "w_up": w_up,
    }


def perturb(workload, rng):
    # Leading dims and N move in one draw (neither their product nor their sum grows); K only shrinks (checks
    # keep K <= 129). Layouts and packing stay.
    p = workload.params
    cost = lambda d: (math.prod(d), math.prod(d[:-1]) + d[-1])
    *lead, n = sizes.shape_near(rng, [*p["input"][:-1], p["N"]], cost=cost)
    return {**p, "input": [*lead, sizes.odd_near(rng, p["input"][-1], high=1.0)], "N": n}
