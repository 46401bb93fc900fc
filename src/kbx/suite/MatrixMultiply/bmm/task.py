"""Batched matrix product of bfloat16 tensors with fp32 accumulation: `torch.bmm(input, mat2)`.

    out[b, m, n] = sum_k input[b, m, k] * mat2[b, k, n]        (k = 0 .. K-1)

Mirrors `torch.bmm`: `input` is (B, M, K), `mat2` is (B, K, N), both bfloat16, and the output is a new
bfloat16 tensor of shape (B, M, N). The products must be summed in fp32 (or wider) and rounded to bfloat16 once,
as cuBLAS does; a running sum kept in bfloat16 (8 significant bits) loses precision at every step.

Workloads cover odd sizes that straddle tile boundaries (127, 129, 65, 33), column-major (transposed) and
strided operands, a `mat2` whose batch dimension is not the outermost in memory (stored as (K, B, N) and
permuted), and a long reduction (K = 2049). Values: `input` is normal with a few outliers (+-8), `mat2` is
uniform in [-2, 2), so the outputs have a standard deviation of about 1.15 * sqrt(K).

Tolerance: |out - ref| <= 4e-3 * sqrt(K) + 1.6e-2 * |ref|. The relative part allows two bfloat16 ulps (a
different fp32 summation order can flip the final rounding, and Triton's CPU interpreter truncates fp32 -> bf16
casts instead of rounding them); the absolute part, about 0.35% of the outputs' standard deviation, absorbs
summation noise around outputs that cancel to nearly zero. Measured: the solution uses at most 0.46 of the
tolerance under the CPU interpreter (seeds 0-2) and 0.18 on an H100 against cuBLAS; a bfloat16 running sum
exceeds it 1.7x to 55x.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "bmm",
    "category": "MatrixMultiply",
    "level": 1,
    "signature": "(input, mat2)",
    "dtypes": ["bfloat16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@"],
    "contract": {
        "kind": "allclose",
        "tolerance": {"bfloat16": [4e-3, 1.6e-2]},
        "reduction_length": "K", "tensor_cores": True,
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"B": 2, "M": 64, "K": 96, "N": 80}},
        {"name": "check_odd", "role": "check", "params": {"B": 3, "M": 127, "K": 129, "N": 65}},
        {"name": "check_transposed", "role": "check",
         "params": {"B": 2, "M": 129, "K": 127, "N": 65, "input_layout": "transposed", "mat2_layout": "transposed"}},
        {"name": "check_strided", "role": "check",
         "params": {"B": 4, "M": 33, "K": 65, "N": 127, "input_layout": "strided", "mat2_layout": "batch_inner"}},
        {"name": "check_long_k", "role": "check", "params": {"B": 2, "M": 33, "K": 2049, "N": 65}},
        {"name": "bench", "role": "bench", "params": {"B": 16, "M": 4096, "K": 4096, "N": 4096}},
        {"name": "bench_transposed", "role": "bench",
         "params": {"B": 64, "M": 2048, "K": 2048, "N": 2048, "mat2_layout": "transposed"}},
    ],
}


def reference(input, mat2):
    # Sum in fp32 throughout: by default PyTorch lets cuBLAS add split-K partial sums in bf16.
    flags = torch.backends.cuda.matmul
    allowed = flags.allow_bf16_reduced_precision_reduction
    flags.allow_bf16_reduced_precision_reduction = False
    try:
        return torch.bmm(input, mat2)
    finally:
        flags.allow_bf16_reduced_precision_reduction = allowed


def _layout(x, name):
    if name == "batch_inner":
        # Same values, stored as (K, B, N): the batch stride is N, smaller than the K stride.
        return x.permute(1, 0, 2).contiguous().permute(1, 0, 2)
    return inputs.layout(x, name)


def make_inputs(workload, dtype, generator):
    p = workload.params
    a = inputs.randn([p["B"], p["M"], p["K"]], dtype, generator)
    a = inputs.with_outliers(a, generator, fraction=1e-3, magnitude=8.0)
    b = inputs.uniform([p["B"], p["K"], p["N"]], -2.0, 2.0, dtype, generator)
    return {
        "input": _layout(a, p.get("input_layout", "contiguous")),
        "mat2": _layout(b, p.get("mat2_layout", "contiguous")),
    }


def perturb(workload, rng):
    # B, M, K and N in one draw; neither the multiply-adds nor the operands' elements grow. Layouts stay.
    p = workload.params
    cost = lambda d: (math.prod(d), d[0] * (d[1] + d[3]) * d[2])
    b, m, k, n = sizes.shape_near(rng, [p["B"], p["M"], p["K"], p["N"]], cost=cost)
    return {**p, "B": b, "M": m, "K": k, "N": n}
