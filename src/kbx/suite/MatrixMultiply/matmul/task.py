"""Matrix product of float16 tensors with fp32 accumulation: `torch.matmul(input, other)`.

    out[..., m, n] = sum_k input[..., m, k] * other[..., k, n]        (k = 0 .. K-1)

Mirrors `torch.matmul` for float16 operands of two or more dimensions. The last two dimensions are the matrices;
the leading (batch) dimensions broadcast against each other as in torch.matmul, so a (B, M, K) input times a
(K, N) matrix multiplies every batch by the same matrix, and (B, M, K) x (B, K, N) is a batched product. The
output is float16 of shape (*batch, M, N). The products must be summed in fp32 (or wider) and rounded to
float16 once, as cuBLAS does; summing in fp16 loses too much precision. 1-D operands (vector products) are not
part of this task: no workload uses them.

Workloads cover 2-D x 2-D, 3-D x 2-D (`other` broadcast over the batch), 3-D x 3-D, a batch dimension of 1 on either
side that broadcasts against the other operand's 3, column-major (transposed) and strided operands that must be read
in place or copied, odd sizes (127, 129, 65, 33) that straddle tile boundaries, and a long reduction (K = 4097).
Values: `input` is normal with a few outliers (+-8), `other` is uniform in [-2, 2), so the outputs have a standard
deviation of about 1.15 * sqrt(K).

Tolerance: |out - ref| <= 2e-4 * sqrt(K) + 2e-3 * |ref|. The relative part allows two fp16 ulps (a different fp32
summation order can flip the final rounding, and the reference itself may differ from the exact product by an
ulp); the absolute part, 2e-4 of the outputs' standard deviation, absorbs fp32 summation noise around outputs
that cancel to nearly zero. Keeping the running sum in fp16 makes errors of several ulps of the partial sums and
fails. Measured: the solution uses at most 0.43 of the tolerance (CPU interpreter, seeds 0-2; and on an H100
against cuBLAS); an fp16 running sum exceeds it 2.7x to 21x.

`check_batch_broadcast`'s input holds the first 65 rows of longer stacks (`inputs.seq_slice`), so its batches are
not stacked rows: a kernel that runs a shared-`other` product as one tall one, stepping rows by the row stride
without checking the batch stride, passed every workload before.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "matmul",
    "category": "MatrixMultiply",
    "level": 1,
    "signature": "(input, other)",
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
        {"name": "smoke", "role": "smoke", "params": {"input": [64, 96], "other": [96, 80], "K": 96}},
        {"name": "check_odd_2d", "role": "check", "params": {"input": [127, 129], "other": [129, 65], "K": 129}},
        {"name": "check_transposed", "role": "check",
         "params": {"input": [129, 127], "other": [127, 65], "K": 127,
                    "input_layout": "transposed", "other_layout": "transposed"}},
        {"name": "check_batch_broadcast", "role": "check",
         "params": {"input": [3, 65, 127], "other": [127, 129], "K": 127, "input_layout": "seq_slice",
                    "other_layout": "transposed"}},
        {"name": "check_batched", "role": "check",
         "params": {"input": [2, 33, 65], "other": [2, 65, 127], "K": 65, "input_layout": "strided"}},
        {"name": "check_batch_one_input", "role": "check",
         "params": {"input": [1, 33, 65], "other": [3, 65, 127], "K": 65}},
        {"name": "check_batch_one_other", "role": "check",
         "params": {"input": [3, 33, 65], "other": [1, 65, 127], "K": 65}},
        {"name": "check_long_k", "role": "check", "params": {"input": [33, 4097], "other": [4097, 65], "K": 4097}},
        {"name": "bench_square", "role": "bench", "params": {"input": [8192, 8192], "other": [8192, 8192], "K": 8192}},
        {"name": "bench_batch_broadcast", "role": "bench",
         "params": {"input": [8, 2048, 4096], "other": [4096, 8192], "K": 4096, "other_layout": "transposed"}},
        {"name": "bench_batched", "role": "bench",
         "params": {"input": [64, 2048, 2048], "other": [64, 2048, 2048], "K": 2048}},
    ],
}


def reference(input, other):
    # Sum in fp32 throughout: by default PyTorch lets cuBLAS add split-K partial sums in fp16, which can be off by
    # an ulp of a partial sum (far more than an ulp of a small output).
    flags = torch.backends.cuda.matmul
    allowed = flags.allow_fp16_reduced_precision_reduction
    flags.allow_fp16_reduced_precision_reduction = False
    try:
        return torch.matmul(input, other)
    finally:
        flags.allow_fp16_reduced_precision_reduction = allowed


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
    # operands' elements grow. The batch dims drawn are the broadcast of both operands' (right-aligned, a missing
    # dim read as 1); an operand's batch size of 1 stays 1, so it still broadcasts, and each other one takes the
    # broadcast dim's new size.
    p = workload.params
    a, b = p["input"], p["other"]
    rank = max(len(a), len(b)) - 2
    a_batch = [1] * (rank + 2 - len(a)) + a[:-2]
    b_batch = [1] * (rank + 2 - len(b)) + b[:-2]

    def follow(own, new):
        return [1 if o == 1 else n for o, n in zip(own, new)]

    def cost(d):
        *new, m, k, n = d
        return math.prod(d), math.prod(follow(a_batch, new)) * m * k + math.prod(follow(b_batch, new)) * k * n

    batch = [max(x, y) for x, y in zip(a_batch, b_batch)]
    *new, m, k, n = sizes.shape_near(rng, [*batch, a[-2], a[-1], b[-1]], cost=cost)
    return {**p, "input": [*follow(a_batch, new)[rank + 2 - len(a):], m, k],
            "other": [*follow(b_batch, new)[rank + 2 - len(b):], k, n], "K": k}
