"""Integer power of a batch of square matrices: `torch.linalg.matrix_power(A, n)`.

    A^n = A A ... A (n factors),   A^0 = I,   A^1 = A        (A is (..., N, N), n an integer >= 0)

Mirrors `torch.linalg.matrix_power(A, n)` for n >= 0: the output has A's shape and dtype. Negative n (powers of
A⁻¹) is not part of this task. n is a workload parameter: 0 (the identity, whatever A holds), 1, 2, 3, 5, 6
and 13 = 0b1101 (3 squarings and 2 products by binary exponentiation, as PyTorch does).

Inputs: A = Q diag(d), Q a random orthogonal matrix, d uniform in [0.85, 1.05] with random signs, so ‖A^k‖₂ <=
1.05^k (at most 1.9 for k = 13) and the entries of every power stay O(1/sqrt(N)), neither vanishing nor
overflowing; A is not normal, so its powers are not just powers of its eigenvalues. Sizes 1, 3, 16, 17, 31, 33 and
64 straddle the 16 / 32 / 64 tiles; batch dims, transposed and strided layouts.

Tolerance. Each product of two O(1)-norm matrices carries about sqrt(N) u of rounding per entry (u the unit
roundoff), and binary exponentiation does m = floor(log2 n) + popcount(n) - 1 of them: m = 5 for n = 13. The
fp32 defaults hold that (5 sqrt(64) 6e-8 = 2.4e-6, and errors add up far below this worst case): the solution
differs from the CPU reference by 1.2e-7 at most (1% of the tolerance) and PyTorch itself is within 6% of it
of the float64 power. In fp16 and bf16 PyTorch rounds every intermediate product to the dtype, so the reference
alone is off by up to about m u relative to the entries (measured against float64 on 2000 matrices, n = 13: up
to 5e-3 in fp16, 5e-2 in bf16, on 3 x 3 matrices whose entries reach 1): atol = rtol = 6e-3 for fp16
(u = 4.9e-4) and 5e-2 for bf16 (u = 3.9e-3), about 12 u, of which that reference error uses 32% and 38%. The
solution rounds at the same places as PyTorch and uses under 10% on the CPU; A^(n-1) in place of A^n misses
the bf16 tolerance 9x or more, the fp16 one 70x, the fp32 one 10^4 x.

check_cube_3 holds 48 matrices, not a handful: an honest kernel may multiply A (A A) where PyTorch multiplies (A A) A,
and with the rounded A A on the other side its error on each element differs from the reference's by up to about
as much again. The rule holds each element to 4x the reference's largest error on elements of its size, taken over
at least a quarter of the output, so on 5 matrices (45 elements; 27 when perturbed) an honest kernel failed on 0.2 %
of seeds, by up to 1.27x (3,000 seeds each, CPU); on 48 (27 to 47 when perturbed) on none, at worst 0.45x.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "matrix_power",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(A, n)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["matrix_power", "matrix_exp", "matmul", "mm", "bmm", "baddbmm", "addmm", "addbmm", "einsum",
                  "tensordot", "linear", "chain_matmul", "multi_dot", "inner", "dot", "eig", "svd", "@"],
    "contract": {
        "kind": "allclose",
        "insensitive": {
            "workloads": ["check_13_64", "check_even_strided"],
            "reason": (
                "the reference rounds every intermediate power to the dtype (log2(n) products in a row), as any "
                "kernel that stores them does: the errors compound to more than half of the smallest outputs (up "
                "to 11 % of elements in bf16, 2 % in fp16)"
            ),
        },
        "tf32": False,
                 "tolerance": {"float16": [6e-3, 6e-3], "bfloat16": [5e-2, 5e-2]}},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [3, 16, 16], "n": 5}},
        {"name": "check_zero", "role": "check", "params": {"shape": [2, 17, 17], "n": 0}},
        {"name": "check_one_t", "role": "check", "params": {"shape": [2, 31, 31], "n": 1, "layout": "transposed"}},
        {"name": "check_cube_3", "role": "check", "params": {"shape": [48, 3, 3], "n": 3}},
        {"name": "check_13_64", "role": "check", "params": {"shape": [1, 64, 64], "n": 13}},
        {"name": "check_even_strided", "role": "check",
         "params": {"shape": [2, 1, 33, 33], "n": 6, "layout": "strided"}},
        {"name": "check_square_1", "role": "check", "params": {"shape": [6, 1, 1], "n": 2}},
        {"name": "bench", "role": "bench", "params": {"shape": [65536, 32, 32], "n": 13}},
    ],
}


def reference(A, n):
    return torch.linalg.matrix_power(A, n)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    g = inputs.randn(shape, "float32", generator)
    # A random orthogonal factor, from a float64 QR: LAPACK's float32 result depends on its thread count, and the
    # trusted and candidate workers run with different counts; rounded from float64 both draw the same bits.
    q, _ = torch.linalg.qr(g.double())
    d = inputs.uniform(shape[:-1], 0.85, 1.05, "float32", generator)
    d = d * inputs.signs(shape[:-1], generator)
    a = (q * d.double()[..., None, :]).to(inputs.torch_dtype(dtype)).contiguous()  # QR returns column-major factors
    return {"A": inputs.layout(a, p.get("layout", "contiguous")), "n": p["n"]}


def perturb(workload, rng):
    # Batch sizes and N (at most 63) move, never adding elements; N = 1, broadcast 1s, n and the layout stay.
    shape = sizes.shape_near(rng, workload.params["shape"][:-1], cost=lambda d: math.prod(d) * d[-1])
    n = min(shape[-1], 63)
    return {**workload.params, "shape": shape[:-1] + [n, n]}
