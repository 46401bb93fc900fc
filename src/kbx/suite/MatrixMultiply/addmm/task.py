"""Scaled matrix product plus a broadcast addend, fp32 accumulation: `torch.addmm(input, mat1, mat2, beta, alpha)`.

    out[m, n] = beta * input[m, n] + alpha * sum_k mat1[m, k] * mat2[k, n]        (k = 0 .. K-1)

Mirrors `torch.addmm(input, mat1, mat2, *, beta=1, alpha=1)` (here beta and alpha are ordinary keyword
parameters): `mat1` is (M, K), `mat2` is (K, N), and `input` broadcasts to (M, N): a full (M, N) matrix, a
bias row (N,) or (1, N), a column (M, 1), or a single value (a 0-d tensor). All are float16 and so is the (M, N)
output. When beta is 0, `input` is ignored entirely, as torch documents: NaN or inf in it must not reach the
output (0 * NaN is NaN, so a kernel that always computes beta * input fails). The products are summed in fp32,
scaled and added in fp32, and rounded to float16 once.

Workloads cover each broadcast form of `input`, beta and alpha other than 1 (negative, fractional, and beta=0
with NaN in `input`), column-major and transposed operands, odd sizes that straddle tile boundaries
(127, 129, 65, 33) and a long reduction (K = 2049). Values: `mat1` is normal with a few outliers (+-8), `mat2`
uniform in [-2, 2), and `input` normal with standard deviation sqrt(K), so both terms matter.

Tolerance: |out - ref| <= 2e-4 * sqrt(K) + 2e-3 * |ref| (as the matmul task: two fp16 ulps for a different
fp32 summation order, plus 2e-4 of the product's standard deviation for outputs that cancel to nearly zero).
Measured: the solution uses at most 0.43 of it (CPU interpreter, seeds 0-1); swapping beta and alpha exceeds it
by orders of magnitude and computing beta * input when beta is 0 produces NaN.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "addmm",
    "category": "MatrixMultiply",
    "level": 1,
    "signature": "(input, mat1, mat2, beta=1, alpha=1)",
    "dtypes": ["float16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@"],
    "contract": {
        "kind": "allclose",
        "tolerance": {"float16": [2e-4, 2e-3]},
        "reduction_length": "K", "tensor_cores": True,
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"M": 64, "K": 96, "N": 80, "input": "full"}},
        {"name": "check_bias_row", "role": "check", "params": {"M": 127, "K": 129, "N": 65, "input": "row"}},
        {"name": "check_column_scaled", "role": "check",
         "params": {"M": 129, "K": 127, "N": 65, "input": "column", "beta": 0.5, "alpha": -1.5,
                    "mat1_layout": "transposed"}},
        {"name": "check_full_transposed", "role": "check",
         "params": {"M": 65, "K": 127, "N": 129, "input": "full", "beta": -2.0, "alpha": 0.25,
                    "input_layout": "transposed", "mat2_layout": "transposed"}},
        {"name": "check_row2d_strided", "role": "check",
         "params": {"M": 33, "K": 65, "N": 127, "input": "row2d", "beta": 1.0, "alpha": 2.0,
                    "mat1_layout": "strided"}},
        {"name": "check_beta_zero_nan", "role": "check",
         "params": {"M": 65, "K": 33, "N": 127, "input": "full", "beta": 0.0, "alpha": 2.0}},
        {"name": "check_scalar_long_k", "role": "check",
         "params": {"M": 33, "K": 2049, "N": 47, "input": "scalar", "beta": 1.5, "alpha": 1.0}},
        {"name": "bench_bias_row", "role": "bench", "params": {"M": 16384, "K": 4096, "N": 8192, "input": "row"}},
        {"name": "bench_full_scaled", "role": "bench",
         "params": {"M": 8192, "K": 8192, "N": 8192, "input": "full", "beta": 0.5, "alpha": 2.0,
                    "mat2_layout": "transposed"}},
    ],
}


def reference(input, mat1, mat2, beta=1, alpha=1):
    # Sum in fp32 throughout: by default PyTorch lets cuBLAS add split-K partial sums in fp16.
    flags = torch.backends.cuda.matmul
    allowed = flags.allow_fp16_reduced_precision_reduction
    flags.allow_fp16_reduced_precision_reduction = False
    try:
        return torch.addmm(input, mat1, mat2, beta=beta, alpha=alpha)
    finally:
        flags.allow_fp16_reduced_precision_reduction = allowed


_INPUT_SHAPES = {"full": lambda m, n: [m, n], "row": lambda m, n: [n], "row2d": lambda m, n: [1, n],
                 "column": lambda m, n: [m, 1], "scalar": lambda m, n: []}


def make_inputs(workload, dtype, generator):
    p = workload.params
    M, K, N = p["M"], p["K"], p["N"]
    a = inputs.randn([M, K], dtype, generator)
    a = inputs.with_outliers(a, generator, fraction=1e-3, magnitude=8.0)
    b = inputs.uniform([K, N], -2.0, 2.0, dtype, generator)
    c = inputs.randn(_INPUT_SHAPES[p["input"]](M, N), dtype, generator, scale=math.sqrt(K))
    if p.get("beta", 1) == 0:
        # Ignored by definition: NaN and inf here must not reach the output.
        c = inputs.with_outliers(c, generator, fraction=0.05, magnitude=float("inf"))
        c[..., ::7] = float("nan")
    return {
        "input": inputs.layout(c, p.get("input_layout", "contiguous")),
        "mat1": inputs.layout(a, p.get("mat1_layout", "contiguous")),
        "mat2": inputs.layout(b, p.get("mat2_layout", "contiguous")),
        "beta": p.get("beta", 1),
        "alpha": p.get("alpha", 1),
    }


def perturb(workload, rng):
    # M, K and N in one draw; neither the multiply-adds nor the operands' elements grow. The form of `input`,
    # beta, alpha and the layouts stay.
    p = workload.params
    cost = lambda d: (d[0] * d[1] * d[2], d[1] * (d[0] + d[2]) + d[0] * d[2])
    m, k, n = sizes.shape_near(rng, [p["M"], p["K"], p["N"]], cost=cost)
    return {**p, "M": m, "K": k, "N": n}
