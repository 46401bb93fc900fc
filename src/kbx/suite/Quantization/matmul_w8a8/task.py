"""W8A8 linear layer: per-row int8 quantization of activations and weights, an exact integer GEMM, fp16 output.

`input` is (M, K) float16 and `weight` is (N, K) float16 (one row per output feature, as in F.linear); the
output is (M, N) float16 approximating input @ weight^T. The scheme, exactly:

    a_s[m] = max_k |input[m, k]| / 127                     computed in fp32; an all-zero row gets a_s[m] = 1
    xq[m, k] = clamp(round_half_to_even(input[m, k] / a_s[m]), -127, 127)          as int8
    w_s[n] = max_k |weight[n, k]| / 127                    per output feature (row of weight); likewise 1 if zero
    wq[n, k] = clamp(round_half_to_even(weight[n, k] / w_s[n]), -127, 127)         as int8
    acc[m, n] = sum_k xq[m, k] * wq[n, k]                  exact, in int32
    out[m, n] = fp16((fp32(acc[m, n]) * a_s[m]) * w_s[n])  the products in fp32, rounded once to fp16

Divisions are IEEE fp32 divisions (correctly rounded) and rounding is half-to-even, as torch.round does. The
reference computes the integer sum exactly (torch._int_mm on CUDA where its shape rules allow, else a float64
product, which is exact here: every partial sum is an integer below 2^53); both give identical results.

Inputs are built so the scheme's choices matter: the row scales of `input` spread over a factor of 64 and those
of `weight` over 16; about one row in four of each operand holds an outlier (+-40 in `input`, +-2 in `weight`)
that sets its row's scale; some workloads contain an all-zero row in each operand; sizes are odd (127, 129,
65, 33, 1000) and operands come contiguous, column-major or strided. In `check_late_peak_long_k` (K = 2501)
each activation row's largest magnitude sits past element 2048, so a row maximum read from the first blocks
only, or merged wrongly, sets a wrong scale (the solution, whose blocks stop at 1024, passed every other check
with its loop cut to one block). `check_late_peak_k_5003` does the same past element 4096, for a kernel that reads
each row in one block of up to 4096 elements (`wrong/absmax_one_block_4096`, which passed every other check).

Contract: quantized, RMS(out - ref) / RMS(ref) <= 3e-3. Measured under the CPU interpreter on the smoke and
check workloads, seeds 0-9 (50 cases): the solution's rel_rmse is 0 in every case (it reproduces the reference
bit for bit, so the margin is unbounded); a legitimate variant that multiplies by 127 / max instead of dividing
by max / 127 flips the few int8 values that sit exactly on a rounding boundary and reaches at most 5.8e-4 (5x
below the bound). Mistakes land far above it: skipping quantization (a plain fp16 product) gives at least
1.8e-2, one per-tensor activation scale instead of per-row scales at least 1.6e-2, and truncating instead of
rounding at least 4.1e-2 (5x to 14x above the bound).
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "matmul_w8a8",
    "category": "Quantization",
    "level": 1,
    "signature": "(input, weight)",
    "dtypes": ["float16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@"],
    "contract": {"kind": "quantized", "bound": 3e-3},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"M": 64, "N": 80, "K": 96}},
        {"name": "check_odd", "role": "check", "params": {"M": 127, "N": 65, "K": 129, "zero_rows": True}},
        {"name": "check_odd_2", "role": "check", "params": {"M": 33, "N": 129, "K": 1000, "zero_rows": True}},
        {"name": "check_layouts", "role": "check",
         "params": {"M": 129, "N": 127, "K": 65, "input_layout": "transposed", "weight_layout": "strided"}},
        {"name": "check_aligned", "role": "check", "params": {"M": 64, "N": 128, "K": 256}},
        {"name": "check_late_peak_long_k", "role": "check", "params": {"M": 9, "N": 33, "K": 2501, "peak": "late"}},
        {"name": "check_late_peak_k_5003", "role": "check", "params": {"M": 3, "N": 17, "K": 5003, "peak": "late"}},
        {"name": "bench_square", "role": "bench", "params": {"M": 8192, "N": 8192, "K": 8192}},
        {"name": "bench_mlp", "role": "bench", "params": {"M": 4096, "N": 14336, "K": 4096}},
    ],
}


def _quantize_rows(x):
    """Per-row symmetric int8 quantization in fp32: (integer values as fp32, fp32 scales)."""
    amax = x.abs().amax(dim=1)
    # A tensor divisor, not the scalar 127.0: on CUDA, PyTorch turns division by a scalar into multiplication by
    # its reciprocal, which is not the correctly rounded quotient the scheme specifies.
    scale = amax / torch.full_like(amax, 127.0)
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    q = torch.clamp(torch.round(x / scale[:, None]), -127, 127)
    return q, scale


def reference(input, weight):
    xq, a_s = _quantize_rows(input.float())
    wq, w_s = _quantize_rows(weight.float())
    M, K = xq.shape
    N = wq.shape[0]
    if xq.is_cuda and M > 16 and K % 8 == 0 and N % 8 == 0:
        acc = torch._int_mm(xq.to(torch.int8), wq.to(torch.int8).t()).float()
    else:
        acc = (xq.double() @ wq.double().t()).float()
    return (acc * a_s[:, None] * w_s[None, :]).to(torch.float16)


def make_inputs(workload, dtype, generator):
    p = workload.params
    M, N, K = p["M"], p["N"], p["K"]
    # Activations: row scales spread over 2^-3 .. 2^3; about one row in four holds an outlier (+-40) that sets
    # its row's scale (so per-row and per-tensor scales differ greatly).
    row_scale = torch.exp2(inputs.uniform([M, 1], -3.0, 3.0, "float32", generator))
    x = inputs.randn([M, K], "float32", generator) * row_scale
    x = inputs.with_outliers(x, generator, fraction=0.25 / K, magnitude=40.0)
    if p.get("peak") == "late":  # each row's largest magnitude past the largest power of two below K, by more
        x = inputs.late_extremum(x, [-1], generator, magnitude=True, step=8.0)  # than a 16-bit ulp up to 512
    # Weights: about 0.05 * N(0, 1), output-feature scales spread over 2^-2 .. 2^2, rare +-2 outliers.
    feature_scale = torch.exp2(inputs.uniform([N, 1], -2.0, 2.0, "float32", generator))
    w = 0.05 * inputs.randn([N, K], "float32", generator) * feature_scale
    w = inputs.with_outliers(w, generator, fraction=0.25 / K, magnitude=2.0)
    if p.get("zero_rows", False):
        x[M // 2] = 0.0
        w[N - 1] = 0.0
    x, w = x.to(inputs.torch_dtype(dtype)), w.to(inputs.torch_dtype(dtype))
    return {
        "input": inputs.layout(x, p.get("input_layout", "contiguous")),
        "weight": inputs.layout(w, p.get("weight_layout", "contiguous")),
    }


def perturb(workload, rng):
    # M, N and K in one draw, odd, with neither the multiply-adds nor the operands' elements growing; a workload
    # whose sizes are all multiples of 64 exists for aligned sizes and gets smaller multiples of 16 instead.
    # zero_rows and layouts stay.
    p = workload.params
    if all(p[d] % 64 == 0 for d in "MNK"):
        m, n, k = (sizes.multiple_near(rng, p[d], 16, high=1.0) for d in "MNK")
    else:
        cost = lambda d: (math.prod(d), (d[0] + d[1]) * d[2])
        m, n, k = sizes.shape_near(rng, [p["M"], p["N"], p["K"]], cost=cost)
    return {**p, "M": m, "N": n, "K": k}
