"""Dot product of two long vectors with fp32 accumulation: `torch.dot(input, tensor)`.

    out = sum_i input[i] * tensor[i]        (i = 0 .. N-1), a 0-d tensor

Mirrors `torch.dot`: `input` and `tensor` are 1-D with the same number of elements and the same dtype (float32 or
bfloat16); the output is a 0-d tensor of that dtype. It is one long reduction: a kernel must split it across many
programs to use the GPU's bandwidth and then combine the partial sums, all in fp32 (for bfloat16, rounded once at
the end).

Workloads cover lengths that straddle block sizes (4097, 65537), strided vectors (every other element of a
wider buffer, and a column of a matrix), a sum whose halves cancel (the second half repeats the first with the
products' sign flipped, so partial sums are in the thousands and the total is O(1)), and a length of 262145.
The two vectors do not always share a stride: `check_strided` pairs a strided input with a contiguous tensor,
`check_matrix_column` a matrix column (stride 7) with a stride-2 tensor; a kernel that reads tensor with input's
stride passed while the two always shared one.
Values: `input` is normal with a few outliers (+-8), `tensor` uniform in [-2, 2), so the sum has a standard
deviation of about 1.15 * sqrt(N).

Tolerance: float32 4e-5 * sqrt(N) + 1e-5 * |ref|: about 3.5e-5 of the sum's standard deviation. Where the halves
cancel, partial sums of about N/2 are rounded to fp32 (an ulp of 2e-3 at 16384) in an order that differs between
implementations, and the O(1) result inherits that rounding: with the default 1e-5 * sqrt(N) the solution and
PyTorch's CPU reference differed by 1.13x the tolerance there. bfloat16 4e-3 * sqrt(N) + 1.6e-2 * |ref| (two bf16
ulps, plus 0.35% of the standard deviation for sums that cancel). Measured: the solution uses at most 0.28 of the
float32 tolerance and 0.002 of the bfloat16 one (CPU interpreter, seeds 0-1); rounding the partial sums to
bfloat16 exceeds it 23x on the cancelling sum.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "dot",
    "category": "MatrixMultiply",
    "level": 1,
    "signature": "(input, tensor)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "nansum", "cumsum", "mean", "@"],
    "contract": {
        "kind": "allclose",
        "insensitive": {
            "workloads": ["check_cancel"],
            "reason": (
                "one output that cancels to a small part of its terms: the rule admits what a backward-stable "
                "fp32 sum of them may make there, more than half of it (an honest sequential sum misses it by "
                "1.7x on seed 0); what the workload catches is partial sums rounded to the input dtype, which "
                "miss by far more"
            ),
        },
        "tolerance": {"float32": [4e-5, 1e-5], "bfloat16": [4e-3, 1.6e-2]},
        "reduction_length": "N",
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"N": 1000}},
        {"name": "check_odd", "role": "check", "params": {"N": 4097}},
        {"name": "check_strided", "role": "check",
         "params": {"N": 65537, "layout": "strided", "tensor_layout": "contiguous"}},
        {"name": "check_matrix_column", "role": "check",
         "params": {"N": 1025, "layout": "column", "tensor_layout": "strided"}},
        {"name": "check_cancel", "role": "check", "params": {"N": 30001, "cancel": True}},
        {"name": "check_long", "role": "check", "params": {"N": 262145}},
        {"name": "bench", "role": "bench", "params": {"N": 536870912}},
    ],
}


def reference(input, tensor):
    return torch.dot(input, tensor)


def _layout(x, name):
    if name == "column":
        # Column 3 of an (N, 7) matrix: stride 7.
        wide = torch.zeros((x.shape[0], 7), dtype=x.dtype, device=x.device)
        wide[:, 3] = x
        return wide[:, 3]
    return inputs.layout(x, name)


def make_inputs(workload, dtype, generator):
    p = workload.params
    n = p["N"]
    a = inputs.randn([n], dtype, generator)
    a = inputs.with_outliers(a, generator, fraction=1e-3, magnitude=8.0)
    b = inputs.uniform([n], -2.0, 2.0, dtype, generator)
    if p.get("cancel", False):
        # The second half repeats the first with the sign of the products flipped: the halves' sums (thousands)
        # cancel exactly, leaving the last element's product. Partial sums are large; the total is O(1).
        h = n // 2
        a[h : 2 * h] = a[:h]
        b[:h] = a[:h]
        b[h : 2 * h] = -a[:h]
    layout = p.get("layout", "contiguous")
    # tensor laid out unlike input in two workloads (tensor_layout)
    return {"input": _layout(a, layout), "tensor": _layout(b, p.get("tensor_layout", layout))}


def perturb(workload, rng):
    # The length moves (odd, never longer); layout and cancellation stay.
    p = workload.params
    return {**p, "N": sizes.odd_near(rng, p["N"], high=1.0)}
