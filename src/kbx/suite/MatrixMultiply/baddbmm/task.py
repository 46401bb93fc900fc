"""Batched scaled matrix product plus a broadcast addend: `torch.baddbmm(input, batch1, batch2, beta, alpha)`.

    out[b, m, n] = beta * input[b, m, n] + alpha * sum_k batch1[b, m, k] * batch2[b, k, n]        (k < K)

Mirrors `torch.baddbmm(input, batch1, batch2, *, beta=1, alpha=1)` (beta and alpha as ordinary keyword
parameters): `batch1` is (B, M, K), `batch2` is (B, K, N), and `input` broadcasts to (B, M, N): a full
(B, M, N) tensor, one (M, N) matrix shared by every batch (an attention mask or bias), a per-batch row (B, 1, N),
a bias row (N,), or a single value. All are bfloat16, and so is the output. When beta is 0, `input` is ignored
entirely, as torch documents: NaN or inf in it must not reach the output. Products are summed in fp32, scaled
and added in fp32, and rounded once.

Workloads cover each broadcast form of `input`, beta and alpha other than 1 (negative, fractional, and beta=0
with NaN and inf in `input`), column-major and strided operands, odd sizes that straddle tile boundaries
(127, 129, 65, 33) and a long reduction (K = 2049). Values: `batch1` normal with a few outliers (+-8), `batch2`
uniform in [-2, 2), `input` normal with standard deviation sqrt(K), so both terms matter.

Tolerance: |out - ref| <= 1e-2 * sqrt(K) + 1.6e-2 * |ref|: two bf16 ulps of the output (a different order can
flip the final rounding; the interpreter truncates fp32 -> bf16 casts), and an absolute part for outputs where
the addend cancels the product, in case the reference rounds alpha * product to bf16 before adding (a half-ulp
error of a product as large as 4 standard deviations: 2^-9 * 4.6 * sqrt(K) ~ 9e-3 * sqrt(K)). Measured: the
solution uses at most 0.22 of it (CPU interpreter, seeds 0-1); swapping beta and alpha exceeds it many times
over, and computing beta * input when beta is 0 produces NaN.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "baddbmm",
    "category": "MatrixMultiply",
    "level": 1,
    "signature": "(input, batch1, batch2, beta=1, alpha=1)",
    "dtypes": ["bfloat16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@"],
    "contract": {
        "kind": "allclose",
        "tolerance": {"bfloat16": [1e-2, 1.6e-2]},
        "reduction_length": "K", "tensor_cores": True,
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"B": 2, "M": 64, "K": 96, "N": 80, "input": "full"}},
        {"name": "check_shared_matrix", "role": "check",
         "params": {"B": 3, "M": 127, "K": 65, "N": 65, "input": "matrix", "beta": 1.0, "alpha": 0.125}},
        {"name": "check_batch_row_transposed", "role": "check",
         "params": {"B": 2, "M": 65, "K": 127, "N": 129, "input": "batch_row", "beta": -0.5, "alpha": 1.5,
                    "batch1_layout": "transposed", "batch2_layout": "transposed"}},
        {"name": "check_row_strided", "role": "check",
         "params": {"B": 4, "M": 33, "K": 65, "N": 127, "input": "row", "batch2_layout": "strided"}},
        {"name": "check_beta_zero_nan", "role": "check",
         "params": {"B": 2, "M": 65, "K": 33, "N": 127, "input": "full", "beta": 0.0, "alpha": -2.0,
                    "input_layout": "transposed"}},
        {"name": "check_scalar_long_k", "role": "check",
         "params": {"B": 2, "M": 33, "K": 2049, "N": 47, "input": "scalar", "beta": 2.0, "alpha": 1.0}},
        {"name": "bench_attention_scores", "role": "bench",
         "params": {"B": 128, "M": 2048, "K": 128, "N": 2048, "input": "matrix", "beta": 1.0, "alpha": 0.0884}},
        {"name": "bench_full", "role": "bench",
         "params": {"B": 16, "M": 4096, "K": 4096, "N": 4096, "input": "full", "beta": 0.5, "alpha": 2.0}},
    ],
}


def reference(input, batch1, batch2, beta=1, alpha=1):
    # Sum in fp32 throughout: by default PyTorch lets cuBLAS add split-K partial sums in bf16.
    flags = torch.backends.cuda.matmul
    allowed = flags.allow_bf16_reduced_precision_reduction
    flags.allow_bf16_reduced_precision_reduction = False
    try:
        return torch.baddbmm(input, batch1, batch2, beta=beta, alpha=alpha)
    finally:
        flags.allow_bf16_reduced_precision_reduction = allowed


_INPUT_SHAPES = {"full": lambda b, m, n: [b, m, n], "matrix": lambda b, m, n: [m, n],
                 "batch_row": lambda b, m, n: [b, 1, n], "row": lambda b, m, n: [n], "scalar": lambda b, m, n: []}


def make_inputs(workload, dtype, generator):
    p = workload.params
    B, M, K, N = p["B"], p["M"], p["K"], p["N"]
    a = inputs.randn([B, M, K], dtype, generator)
    a = inputs.with_outliers(a, generator, fraction=1e-3, magnitude=8.0)
    b = inputs.uniform([B, K, N], -2.0, 2.0, dtype, generator)
    c = inputs.randn(_INPUT_SHAPES[p["input"]](B, M, N), dtype, generator, scale=math.sqrt(K))
    if p.get("beta", 1) == 0:
        # Ignored by definition: NaN and inf here must not reach the output.
        c = inputs.with_outliers(c, generator, fraction=0.05, magnitude=float("inf"))
        c[..., ::7] = float("nan")
    return {
        "input": inputs.layout(c, p.get("input_layout", "contiguous")),
        "batch1": inputs.layout(a, p.get("batch1_layout", "contiguous")),
        "batch2": inputs.layout(b, p.get("batch2_layout", "contiguous")),
        "beta": p.get("beta", 1),
        "alpha": p.get("alpha", 1),
    }


def perturb(workload, rng):
    # B, M, K and N in one draw; neither the multiply-adds nor the operands' elements grow. The form of `input`,
    # beta, alpha and the layouts stay.
    p = workload.params
    cost = lambda d: (math.prod(d), d[0] * (d[2] * (d[1] + d[3]) + d[1] * d[3]))
    b, m, k, n = sizes.shape_near(rng, [p["B"], p["M"], p["K"], p["N"]], cost=cost)
    return {**p, "B": b, "M": m, "K": k, "N": n}
