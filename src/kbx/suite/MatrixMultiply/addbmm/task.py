"""Sum of a batch of matrix products, scaled, plus a broadcast addend: `torch.addbmm(input, batch1, batch2, ...)`.

    out[m, n] = beta * input[m, n] + alpha * sum_b sum_k batch1[b, m, k] * batch2[b, k, n]      (b < B, k < K)

Mirrors `torch.addbmm(input, batch1, batch2, *, beta=1, alpha=1)` (beta and alpha as ordinary keyword
parameters): `batch1` is (B, M, K), `batch2` is (B, K, N), and the B products are summed into one (M, N) matrix,
so the reduction runs over B * K terms. `input` broadcasts to (M, N): a full matrix, a bias row (N,), a column
(M, 1) or a single value. All are float16 or bfloat16, and so is the output. When beta is 0, `input` is ignored
entirely, as torch documents: NaN or inf in it must not reach the output. The B * K products are summed in fp32,
scaled and added in fp32, and rounded once: that is what PyTorch does on the GPU (one GEMM over the concatenated
batches, with reduced-precision reductions turned off in `reference`). PyTorch's CPU addbmm instead adds one
batch at a time into the output, rounding the running sum to fp16/bf16 after each batch, so on the CPU
`reference` computes in fp32 and rounds once.

Workloads cover each broadcast form of `input`, beta and alpha other than 1 (negative, fractional, and beta=0
with NaN and inf in `input`), many batches of a short K (B = 129, K = 5: a kernel that rounds the running sum
between batches fails there), column-major, strided and batch-inner operands (batch stride smaller than the row
stride, as when the batch is a middle dimension of a larger tensor), odd sizes that straddle tile boundaries and a
long K (1025). Values: `batch1` normal with a few outliers (+-8), `batch2` uniform in [-2, 2), `input` normal
with standard deviation sqrt(B * K), so both terms matter.

Tolerance: the defaults with atol widened by sqrt(B * K) (`reduction_length`: the workload's `length` = B * K),
i.e. |out - ref| <= 1e-3 * sqrt(B * K) + 1e-3 * |ref| in fp16 and 1.6e-2 * sqrt(B * K) + 1.6e-2 * |ref| in bf16.
The rtol part is one to two ulps of the output: a different fp32 summation order can flip the final rounding.
The atol part covers outputs where beta * input cancels the product, whose fp32 sums of B * K terms of size
~1 differ by order sqrt(B * K) * 2^-24 between orders, far below it. Measured: the solution uses at most 0.4 of
it in fp16 (one flipped final rounding) and matches bit for bit in bf16 (CPU interpreter, seeds 0-3); keeping the
running sum in fp16/bf16 between batches exceeds it 6-8x (fp16) and 3x (bf16) on the 129-batch workload, and
taking beta as 1 by far more.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "addbmm",
    "category": "MatrixMultiply",
    "level": 1,
    "signature": "(input, batch1, batch2, beta=1, alpha=1)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@"],
    "contract": {"kind": "allclose", "reduction_length": "length", "tensor_cores": True},
    "workloads": [
        {"name": "smoke", "role": "smoke",
         "params": {"B": 3, "M": 64, "K": 32, "N": 48, "length": 96, "input": "full"}},
        {"name": "check_many_batches", "role": "check",
         "params": {"B": 129, "M": 33, "K": 5, "N": 47, "length": 645, "input": "full", "beta": -0.5,
                    "alpha": 1.5}},
        {"name": "check_row_transposed", "role": "check",
         "params": {"B": 4, "M": 127, "K": 65, "N": 129, "length": 260, "input": "row", "beta": 1.0,
                    "alpha": 0.125, "batch1_layout": "transposed", "batch2_layout": "strided"}},
        {"name": "check_column_batch_inner", "role": "check",
         "params": {"B": 6, "M": 65, "K": 33, "N": 127, "length": 198, "input": "column", "beta": 2.0,
                    "alpha": 0.25, "batch1_layout": "batch_inner", "batch2_layout": "transposed"}},
        {"name": "check_beta_zero_nan", "role": "check",
         "params": {"B": 3, "M": 65, "K": 33, "N": 127, "length": 99, "input": "full", "beta": 0.0,
                    "alpha": -2.0, "input_layout": "transposed", "batch2_layout": "batch_inner"}},
        {"name": "check_scalar_long_k", "role": "check",
         "params": {"B": 2, "M": 33, "K": 1025, "N": 47, "length": 2050, "input": "scalar", "beta": 1.0,
                    "alpha": 1.0}},
        {"name": "bench_square", "role": "bench",
         "params": {"B": 16, "M": 4096, "K": 4096, "N": 4096, "length": 65536, "input": "full", "beta": 0.5,
                    "alpha": 2.0}},
        {"name": "bench_many_small_k", "role": "bench",
         "params": {"B": 2048, "M": 2048, "K": 64, "N": 2048, "length": 131072, "input": "row"}},
    ],
}


def reference(input, batch1, batch2, beta=1, alpha=1):
    if batch1.device.type == "cpu":
        # The CPU kernel rounds the running sum to the output dtype after every batch: sum in fp32 instead.
        out = torch.addbmm(input.float(), batch1.float(), batch2.float(), beta=beta, alpha=alpha)
        return out.to(batch1.dtype)
    # Sum in fp32 throughout: by default PyTorch lets cuBLAS add split-K partial sums in fp16/bf16.
    flags = torch.backends.cuda.matmul
    allowed = flags.allow_fp16_reduced_precision_reduction, flags.allow_bf16_reduced_precision_reduction
    flags.allow_fp16_reduced_precision_reduction = False
    flags.allow_bf16_reduced_precision_reduction = False
    try:
        return torch.addbmm(input, batch1, batch2, beta=beta, alpha=alpha)
    finally:
        flags.allow_fp16_reduced_precision_reduction, flags.allow_bf16_reduced_precision_reduction = allowed


_INPUT_SHAPES = {"full": lambda m, n: [m, n], "row": lambda m, n: [n], "column": lambda m, n: [m, 1],
                 "scalar": lambda m, n: []}


def _layout(x, name):
    """A named layout; `batch_inner` stores a (B, R, C) batch as (R, B, C): batch stride C, row stride B * C."""
    if name == "batch_inner":
        return x.transpose(0, 1).contiguous().transpose(0, 1)
    return inputs.layout(x, name)


def make_inputs(workload, dtype, generator):
    p = workload.params
    B, M, K, N = p["B"], p["M"], p["K"], p["N"]
    a = inputs.randn([B, M, K], dtype, generator)
    a = inputs.with_outliers(a, generator, fraction=1e-3, magnitude=8.0)
    b = inputs.uniform([B, K, N], -2.0, 2.0, dtype, generator)
    c = inputs.randn(_INPUT_SHAPES[p["input"]](M, N), dtype, generator, scale=math.sqrt(B * K))
    if p.get("beta", 1) == 0:
        # Ignored by definition: NaN and inf here must not reach the output.
        c = inputs.with_outliers(c, generator, fraction=0.05, magnitude=float("inf"))
        c[..., ::7] = float("nan")
    return {
        "input": _layout(c, p.get("input_layout", "contiguous")),
        "batch1": _layout(a, p.get("batch1_layout", "contiguous")),
        "batch2": _layout(b, p.get("batch2_layout", "contiguous")),
        "beta": p.get("beta", 1),
        "alpha": p.get("alpha", 1),
    }


def perturb(workload, rng):
    # B, M, K and N in one draw; neither the multiply-adds nor the operands' elements grow, and `length` follows.
    # The form of `input`, beta, alpha and the layouts stay.
    p = workload.params
    cost = lambda d: (d[0] * d[1] * d[2] * d[3], d[0] * d[2] * (d[1] + d[3]) + d[1] * d[3])
    b, m, k, n = sizes.shape_near(rng, [p["B"], p["M"], p["K"], p["N"]], cost=cost)
    return {**p, "B": b, "M": m, "K": k, "N": n, "length": b * k}
