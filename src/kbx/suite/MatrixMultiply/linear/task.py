"""A linear layer, y = x W^T + b, with fp32 accumulation: `torch.nn.functional.linear(input, weight, bias)`.

    out[..., n] = bias[n] + sum_k input[..., k] * weight[n, k]        (k = 0 .. K-1)

Mirrors `F.linear(input, weight, bias=None)`: `input` is (M, K) or (B, S, K), `weight` is (N, K) (one row per
output feature, as nn.Linear stores it: the product uses its transpose), `bias` is (N,) or None, and the output
has the input's leading dimensions and N features, in the input's dtype. For float32 the products are true fp32
(the reference turns TF32 off); bfloat16 products are summed in fp32, the bias added, and the result rounded once.

Workloads cover 2-D and 3-D inputs (the 3-D one without bias holds the first 33 positions of longer sequences,
so its leading dims do not merge: a kernel that steps flattened rows by the row stride passed every other
workload), with and without bias, odd sizes that straddle tile boundaries (127, 129,
65, 33), a column-major input and a weight stored transposed (a (K, N) tensor viewed as (N, K)), a 3-D input
whose feature axis is strided, and a long reduction (K = 2049, no bias: cuBLASLt's fused-bias path may split K
and add partial sums in bf16 whatever PyTorch's flags say). Values: `input` is normal with a few outliers (+-8),
`weight` uniform in [-2, 2), `bias` normal with standard deviation 4, so outputs have a standard deviation of
about 1.15 * sqrt(K).

Tolerance: float32 1e-5 * sqrt(K) + 1e-5 * |ref| (the default widened with K, room for a different fp32
summation order); bfloat16 1e-2 * sqrt(K) + 1.6e-2 * |ref|: two bf16 ulps of the output (a different order can
flip the final rounding; the interpreter truncates fp32 -> bf16 casts), and an absolute part for outputs where
the bias cancels the product: the reference may round the product to bf16 before adding the bias (PyTorch's CPU
path does for a strided input), a half-ulp error of a product as large as 4 standard deviations, 2^-9 * 4.6 *
sqrt(K) ~ 9e-3 * sqrt(K). Measured: the solution uses at most 0.12 of the float32 tolerance and 0.47 of the
bfloat16 one (CPU interpreter, seeds 0-3; 0.90 with the narrower 4e-3 * sqrt(K) of the bmm task).
"""

import math

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "linear",
    "category": "MatrixMultiply",
    "level": 1,
    "signature": "(input, weight, bias=None)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@"],
    "contract": {
        "kind": "allclose",
        "insensitive": {
            "workloads": ["check_3d_strided"],
            "reason": (
                "the reference rounds the product to bf16 before adding the bias on this layout, as an unfused "
                "kernel does: where product and bias cancel, that rounding is more than half of the output "
                "(about 2 % of elements in bf16)"
            ),
        },
        "tolerance": {"float32": [1e-5, 1e-5], "bfloat16": [1e-2, 1.6e-2]},
        "reduction_length": "K", "tensor_cores": True,
        "tf32": False,
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"input": [64, 96], "N": 80, "K": 96}},
        {"name": "check_odd", "role": "check", "params": {"input": [127, 129], "N": 65, "K": 129}},
        {"name": "check_3d_no_bias", "role": "check",
         "params": {"input": [3, 33, 65], "N": 127, "K": 65, "bias": False, "input_layout": "seq_slice"}},
        {"name": "check_transposed", "role": "check",
         "params": {"input": [129, 127], "N": 65, "K": 127, "input_layout": "transposed",
                    "weight_layout": "transposed"}},
        {"name": "check_3d_strided", "role": "check",
         "params": {"input": [2, 37, 63], "N": 129, "K": 63, "input_layout": "strided"}},
        {"name": "check_long_k", "role": "check",
         "params": {"input": [33, 2049], "N": 47, "K": 2049, "bias": False}},
        {"name": "bench_3d", "role": "bench", "params": {"input": [4, 2048, 4096], "N": 8192, "K": 4096}},
        {"name": "bench_2d", "role": "bench",
         "params": {"input": [16384, 4096], "N": 4096, "K": 4096, "weight_layout": "transposed"}},
    ],
}


def reference(input, weight, bias=None):
    # True fp32 for float32 (no TF32) and fp32 sums throughout for bfloat16 (no reduced-precision split-K).
    flags = torch.backends.cuda.matmul
    saved = flags.allow_tf32, flags.allow_bf16_reduced_precision_reduction
    flags.allow_tf32 = flags.allow_bf16_reduced_precision_reduction = False
    try:
        return F.linear(input, weight, bias)
    finally:
        flags.allow_tf32, flags.allow_bf16_reduced_precision_reduction = saved


def make_inputs(workload, dtype, generator):
    p = workload.params
    K, N = p["K"], p["N"]
    x = inputs.randn(p["input"], dtype, generator)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=8.0)
    w = inputs.uniform([N, K], -2.0, 2.0, dtype, generator)
    b = inputs.randn([N], dtype, generator, scale=4.0) if p.get("bias", True) else None
    return {
        "input": inputs.layout(x, p.get("input_layout", "contiguous")),
        "weight": inputs.layout(w, p.get("weight_layout", "contiguous")),
        "bias": b,
    }


def perturb(workload, rng):
    # Leading sizes, K and N in one draw (K stays shared by input and weight); neither the multiply-adds nor the
    # operands' elements grow. Bias and layouts stay.
    p = workload.params
    cost = lambda d: (math.prod(d), math.prod(d[:-1]) + d[-2] * d[-1])
    *lead, k, n = sizes.shape_near(rng, [*p["input"][:-1], p["K"], p["N"]], cost=cost)
    return {**p, "input": [*lead, k], "K": k, "N": n}
