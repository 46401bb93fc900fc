"""Inverse of a batch of small square matrices: `torch.linalg.inv(A)`.

    X = A⁻¹, i.e. A X = X A = I        (A and X are (..., n, n))

Mirrors `torch.linalg.inv(A)`: the output has A's shape and dtype. Every A here is a row permutation of a
diagonally dominant matrix, A = P (D + E) with D a diagonal of random sign and magnitude in [1, 2], E normal *
0.3 / sqrt(n) and P a random permutation: A is well conditioned (singular values within a factor of about 4), so
A⁻¹ is unique with O(1) entries, while A's own diagonal is mostly small entries of E; where A[0, 0] is such a
small entry it is set to exactly 0, so elimination without row exchanges divides by zero.

Scope: batches of many small matrices (n up to 64), where a Triton kernel holding each matrix in registers beats
a batched library LU; the bench inverts 2^17 matrices of size 32.

Tolerance: the fp32 defaults; the solution differs from LAPACK by 4e-7 at most (under 5% of the tolerance),
and the wrong candidates miss by far.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "inv",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(A)",
    "dtypes": ["float32"],
    "forbidden": ["inv", "inv_ex", "inverse", "pinv", "tensorinv", "solve", "solve_ex", "solve_triangular",
                  "triangular_solve", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "getrf", "getri", "lstsq",
                  "cholesky_inverse", "qr", "svd", "matmul", "mm", "bmm", "einsum", "tensordot", "@"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [6, 16, 16]}},
        {"name": "check_33", "role": "check", "params": {"shape": [3, 33, 33]}},
        {"name": "check_64", "role": "check", "params": {"shape": [1, 64, 64]}},
        {"name": "check_small_t", "role": "check", "params": {"shape": [9, 3, 3], "layout": "transposed"}},
        {"name": "check_batch_dims", "role": "check", "params": {"shape": [2, 2, 17, 17]}},
        {"name": "check_strided", "role": "check", "params": {"shape": [2, 31, 31], "layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [131072, 32, 32]}},
    ],
}


def reference(A):
    return torch.linalg.inv(A)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    n = shape[-1]
    d = inputs.uniform(shape[:-1], 1.0, 2.0, "float32", generator)
    d = d * inputs.uniform(shape[:-1], -1.0, 1.0, "float32", generator).sign()
    m = inputs.randn(shape, "float32", generator, scale=0.3 / math.sqrt(n)) + torch.diag_embed(d)
    perm = torch.rand(shape[:-1], generator=generator, device=generator.device).argsort(dim=-1)
    a = torch.take_along_dim(m, perm[..., None], dim=-2)
    corner = a[..., :1, :1]
    a[..., :1, :1] = torch.where(corner.abs() < 0.5, torch.zeros_like(corner), corner)
    return {"A": inputs.layout(a.to(inputs.torch_dtype(dtype)), p.get("layout", "contiguous"))}


def perturb(workload, rng):
    # Batch sizes and n (at most 63) move, never adding elements; the layout stays.
    shape = sizes.shape_near(rng, workload.params["shape"][:-1], cost=lambda d: math.prod(d) * d[-1])
    n = min(shape[-1], 63)
    return {**workload.params, "shape": shape[:-1] + [n, n]}
