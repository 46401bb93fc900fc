"""float32 matrix product where TF32 tensor-core arithmetic is allowed: `torch.matmul(input, other)`.

    out[..., m, n] = sum_k input[..., m, k] * other[..., k, n]        (k = 0 .. K-1)

Mirrors `torch.matmul` for float32 operands of two or more dimensions with
`torch.backends.cuda.matmul.allow_tf32 = True`: the contract allows the products to be formed from operands
rounded (or truncated) to TF32, 10 explicit mantissa bits, with fp32 accumulation, which is how the tensor cores
multiply fp32 data at several times the fp32 CUDA-core rate. The reference itself is the exact fp32 product
(TF32 off), so the tolerance below is what a TF32 kernel needs, not what the reference's own arithmetic makes.
Batch dimensions broadcast as in torch.matmul ((B, M, K) x (K, N) multiplies every batch by one matrix); the
output is float32 of shape (*batch, M, N). 1-D operands are not part of this task.

Workloads cover 2-D x 2-D, 3-D x 2-D (`other` broadcast), 3-D x 3-D, column-major and strided operands, odd
sizes that straddle tile boundaries (127, 129, 65, 33) and a long reduction (K = 4097). Values: `input` is
normal with a few outliers (+-8), `other` uniform in [-2, 2), so outputs have a standard deviation of about
1.15 * sqrt(K).

Tolerance: |out - ref| <= 3e-3 * sqrt(K) + 2e-3 * |ref|. TF32 operands carry a relative error of up to 2^-11
(rounded) or 2^-10 (truncated, as the tensor cores do with raw fp32 bits); over K products of rms size 1.15 that
is a random error of about 5e-4 * sqrt(K) in the sum, plus, for truncation, a bias toward zero of about 1e-3 of
the output. Emulating TF32 on these workloads (operands truncated or rounded to 10 bits, exact sums) uses at most
0.46 of the tolerance; rounding the operands to bfloat16 instead (7 bits) exceeds it 2.1x to 2.9x (4.2x when
truncated; the bf16-operand candidate exceeds it 2.6x to 3.4x on the CPU interpreter, whose casts truncate), and
float16 operands (10 bits) behave like TF32. On the CPU interpreter the solution is exact fp32 (the interpreter
does not emulate TF32): it uses at most 0.0004 of the tolerance.

Baselines: `baseline` is torch.matmul itself, and since the contract allows TF32 the performance stage runs it,
eager and compiled, with TF32 allowed (`kbx.tasks.baseline.baseline_precision`): cuBLAS's TF32 product, the
speed a candidate's TF32 kernel should be held to. Timing the reference instead (TF32 off, fp32 CUDA cores at
about 50 TFLOP/s) made every TF32 kernel look 2.75-5.8x faster than PyTorch (issue 20).
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "matmul_tf32",
    "category": "MatrixMultiply",
    "level": 1,
    "signature": "(input, other)",
    "dtypes": ["float32"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@"],
    "contract": {
        "kind": "allclose",
        "against_reference": (
            "TF32 products are allowed and the reference (exact fp32) uses none: its own error, which the float64 "
            "truth rule scales from, is a thousand times below what a TF32 kernel makes, so the tolerance below, "
            "derived for TF32, judges against the reference instead"
        ),
        "tolerance": {"float32": [3e-3, 2e-3]},
        "reduction_length": "K", "tensor_cores": True,
        "tf32": True,
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"input": [64, 96], "other": [96, 80], "K": 96}},
        {"name": "check_odd_2d", "role": "check", "params": {"input": [127, 129], "other": [129, 65], "K": 129}},
        {"name": "check_transposed", "role": "check",
         "params": {"input": [129, 127], "other": [127, 65], "K": 127,
                    "input_layout": "transposed", "other_layout": "transposed"}},
        {"name": "check_batch_broadcast", "role": "check",
         "params": {"input": [3, 33, 127], "other": [127, 65], "K": 127, "other_layout": "transposed"}},
        {"name": "check_batched_strided", "role": "check",
         "params": {"input": [2, 33, 65], "other": [2, 65, 127], "K": 65, "input_layout": "strided"}},
        {"name": "check_long_k", "role": "check", "params": {"input": [33, 4097], "other": [4097, 47], "K": 4097}},
        {"name": "bench_square", "role": "bench", "params": {"input": [8192, 8192], "other": [8192, 8192], "K": 8192}},
        {"name": "bench_batch_broadcast", "role": "bench",
         "params": {"input": [8, 2048, 4096], "other": [4096, 4096], "K": 4096, "other_layout": "transposed"}},
    ],
}


def reference(input, other):
    # The exact fp32 product (TF32 off); the tolerance, not the reference, allows for TF32.
    flags = torch.backends.cuda.matmul
    saved = flags.allow_tf32
    flags.allow_tf32 = False
    try:
        return torch.matmul(input, other)
    finally:
        flags.allow_tf32 = saved


def baseline(input, other):
    # What is timed: torch's product, which the performance stage runs with TF32 allowed, as the contract allows.
    return torch.matmul(input, other)


def make_inputs(workload, dtype, generator):
    p = workload.params
    a = inputs.randn(p["input"], dtype, generator)
    a = inputs.with_outliers(a, generator, fraction=1e-3, magnitude=8.0)
    b = inputs.uniform(p["other"], -2.0, 2.0, dtype, generator)
    return {
        "input": inputs.layout(a, p.get("input_layout", "contiguous")),
        "other": inputs.layout(b, p.get("other_layout", "contiguous")),
    }


def perturb(workload, rng):
    # Batch dims, M, K and N in one draw, so K stays shared by both operands; neither the multiply-adds nor the
    # operands' elements grow. `other`'s batch dims, where it has any, are the trailing ones of `input`'s.
    p = workload.params
    a, b = p["input"], p["other"]
    shared = len(b) - 2

    def cost(d):
        *batch, m, k, n = d
        return math.prod(d), math.prod(batch) * m * k + math.prod(batch[len(batch) - shared:]) * k * n

    *batch, m, k, n = sizes.shape_near(rng, [*a[:-2], a[-2], a[-1], b[-1]], cost=cost)
    return {**p, "input": [*batch, m, k], "other": [*batch[len(batch) - shared:], k, n], "K": k}
