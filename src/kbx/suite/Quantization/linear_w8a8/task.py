"""W8A8 linear layer: int8 weights with per-output-channel scales, dynamic per-token int8 activations.

`input` is (..., K) in fp16 or bf16, `weight` is (N, K) int8 (already quantized, one row per output feature as
in F.linear), `weight_scale` is (N,) fp32 and `bias` is (N,) in the input's dtype or None. The output is
(..., N) in the input's dtype and approximates F.linear(input, weight * weight_scale[:, None], bias). The
scheme, exactly (m runs over all leading indices of `input`):

    a_s[m]   = max_k |fp32(input[m, k])| / 127      fp32, correctly rounded; an all-zero row gets a_s[m] = 1
    xq[m, k] = clamp(round_half_to_even(fp32(input[m, k]) / a_s[m]), -127, 127)       as int8
    acc[m, n] = sum_k xq[m, k] * weight[n, k]        exact, in int32 (|acc| <= 127 * 127 * K < 2^31)
    out[m, n] = dtype((fp32(acc[m, n]) * a_s[m]) * weight_scale[n] + fp32(bias[n]))   in fp32, rounded once

The reference computes the integer sum exactly (torch._int_mm on CUDA where its shape rules allow, else a
float64 product, exact here: every partial sum is an integer below 2^53).

Contract: quantized, RMS(out - ref) / RMS(ref) <= 2e-3. Measured under the CPU interpreter on the smoke and
check workloads, both dtypes, seeds 0-4: the solution's rel_rmse is 0 (bit for bit). No activation lies within
1e-3 of a rounding boundary of its row's int8 grid (the inputs set such elements to 0; it never changes a row's
maximum), so every faithful way of dividing by a_s gives the same int8 values; what legitimately remains is the
fp32 epilogue's order: a variant that quantizes with x * (127 / (127 * a_s)), multiplies a_s[m] * w_s[n] first
and adds the bias without rounding the product (as an FMA does) reaches at most 1.7e-5 (100x below the bound).
Mistakes land far above it: skipping the activation quantization (W8A16: fp activations times the dequantized
weights) at least 9.5e-3, one per-tensor activation scale at least 1.8e-2, truncating instead of rounding at
least 2.5e-2 (5x to 12x above the bound).

Inputs: activation rows with scales spread over 2^-3 .. 2^3, about one row in four holding a +-40 outlier that
sets its scale, an all-zero row in some workloads; weights quantized per output channel from Gaussian rows
whose scales spread over 2^-2 .. 2^2 (so every int8 value occurs); a bias of about the output's size or none;
2-D and 3-D inputs, column-major activations and a strided weight; odd M, N and K. In `check_late_peak_long_k`
(K = 9001) each activation row's largest magnitude sits past element 8192, so a row maximum read from the first
blocks only, or merged wrongly, sets a wrong scale (the solution, whose blocks stop at 8192, passed every other
check with its loop cut to one block).

`check_3d_long_k`'s input holds the first 11 positions of longer sequences (`inputs.seq_slice`), so its leading dims
do not merge: a kernel that flattens them into rows by stepping the row stride, with no reshape, reads the wrong
rows after the first sequence.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "linear_w8a8",
    "category": "Quantization",
    "level": 1,
    "signature": "(input, weight, weight_scale, bias=None)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@"],
    "contract": {"kind": "quantized", "bound": 2e-3},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"batch": [64], "N": 80, "K": 96, "bias": True}},
        {"name": "check_odd", "role": "check",
         "params": {"batch": [127], "N": 65, "K": 129, "bias": True, "zero_row": True}},
        {"name": "check_3d_long_k", "role": "check",
         "params": {"batch": [3, 11], "N": 129, "K": 1000, "bias": False, "zero_row": True,
                    "input_layout": "seq_slice"}},
        {"name": "check_late_peak_long_k", "role": "check",
         "params": {"batch": [5], "N": 17, "K": 9001, "bias": True, "peak": "late"}},
        {"name": "check_layouts", "role": "check",
         "params": {"batch": [129], "N": 127, "K": 65, "bias": True, "input_layout": "transposed",
                    "weight_layout": "strided"}},
        {"name": "check_aligned", "role": "check", "params": {"batch": [64], "N": 128, "K": 256, "bias": False}},
        {"name": "bench_square", "role": "bench", "params": {"batch": [8192], "N": 8192, "K": 8192, "bias": True}},
        {"name": "bench_mlp", "role": "bench", "params": {"batch": [4, 1024], "N": 14336, "K": 4096, "bias": False}},
    ],
}


def _quantize_rows(x):
    """Per-row symmetric int8 quantization in fp32: (integer values as fp32, fp32 scales)."""
    amax = x.abs().amax(dim=1)
    # A tensor divisor, not the scalar 127.0: on CUDA, PyTorch turns division by a scalar into multiplication by
    # its reciprocal, which is not the correctly rounded quotient the scheme specifies.
    scale = amax / torch.full_like(amax, 127.0)
    scale = torch.where(amax == 0, torch.ones_like(scale), scale)
    return torch.clamp(torch.round(x / scale[:, None]), -127, 127), scale


def reference(input, weight, weight_scale, bias=None):
    K = input.shape[-1]
    xq, a_s = _quantize_rows(input.reshape(-1, K).float())
    M, N = xq.shape[0], weight.shape[0]
    if xq.is_cuda and M > 16 and K % 8 == 0 and N % 8 == 0:
        acc = torch._int_mm(xq.to(torch.int8), weight.t()).float()
    else:
        acc = (xq.double() @ weight.double().t()).float()
    out = acc * a_s[:, None] * weight_scale[None, :]
    if bias is not None:
        out = out + bias.float()[None, :]
    return out.to(input.dtype).reshape(*input.shape[:-1], N)


def make_inputs(workload, dtype, generator):
    p = workload.params
    M, N, K = math.prod(p["batch"]), p["N"], p["K"]
    # Activations: row scales spread over 2^-3 .. 2^3; about one row in four holds an outlier (+-40) that sets
    # its row's scale (so per-row and per-tensor scales differ greatly).
    row_scale = torch.exp2(inputs.uniform([M, 1], -3.0, 3.0, "float32", generator))
    x = inputs.randn([M, K], "float32", generator) * row_scale
    x = inputs.with_outliers(x, generator, fraction=0.25 / K, magnitude=40.0)
    if p.get("peak") == "late":  # each row's largest magnitude past the largest power of two below K, by more
        x = inputs.late_extremum(x, [-1], generator, magnitude=True, step=8.0)  # than a 16-bit ulp up to 512
    if p.get("zero_row", False):
        x[M // 2] = 0.0
    x = x.to(inputs.torch_dtype(dtype)).to(torch.float32)
    # No activation within 1e-3 of a rounding boundary of its row's grid (such elements become 0, which never
    # changes a row's maximum): every faithful way of dividing by the row scale then gives the same int8 values.
    amax = x.abs().amax(dim=1, keepdim=True).double()
    y = x.double() / (amax / 127.0)
    x = x.masked_fill(((y.abs() - y.abs().floor()) - 0.5).abs() < 1e-3, 0.0)
    x = x.to(inputs.torch_dtype(dtype)).reshape(*p["batch"], K)
    # Weights: Gaussian rows with scales over 2^-2 .. 2^2, quantized per row (absmax / 127, half to even).
    feature_scale = torch.exp2(inputs.uniform([N, 1], -2.0, 2.0, "float32", generator))
    w = 0.05 * inputs.randn([N, K], "float32", generator) * feature_scale
    w_scale = w.abs().amax(dim=1) / 127.0
    wq = torch.clamp(torch.round(w / w_scale[:, None]), -127, 127).to(torch.int8)
    bias = None
    if p["bias"]:
        bias = inputs.randn([N], dtype, generator, scale=0.5 * math.sqrt(K) * 0.05)
    if p.get("input_layout", "contiguous") != "contiguous":
        x = inputs.layout(x, p["input_layout"])
    return {
        "input": x,
        "weight": inputs.layout(wq, p.get("weight_layout", "contiguous")),
        "weight_scale": w_scale,
        "bias": bias,
    }


def perturb(workload, rng):
    # M (the product of the batch dims), N and K in one draw, odd, with neither the multiply-adds nor the
    # operands' elements growing; the aligned workload gets smaller multiples of 16. Bias, zero_row and layouts
    # stay; a 3-D batch keeps its leading dim.
    p = workload.params
    batch = p["batch"]
    lead = math.prod(batch[:-1])
    if all(v % 64 == 0 for v in (batch[-1], p["N"], p["K"])):
        m, n, k = (sizes.multiple_near(rng, v, 16, high=1.0) for v in (batch[-1], p["N"], p["K"]))
    else:
        cost = lambda d: (lead * math.prod(d), (lead * d[0] + d[1]) * d[2])
        m, n, k = sizes.shape_near(rng, [batch[-1], p["N"], p["K"]], cost=cost)
    return {**p, "batch": [*batch[:-1], m], "N": n, "K": k}
