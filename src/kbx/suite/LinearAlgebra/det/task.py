"""Determinant of a batch of small square matrices: `torch.linalg.det(A)`.

    det(A) = sign(P) * prod_i U[i, i]        where P A = L U (LU with partial pivoting)

Mirrors `torch.linalg.det(A)`: A is (..., n, n), the output has the batch shape (...) and A's dtype. Every A here
is a row permutation of a diagonally dominant matrix, A = P (D + E) with D a diagonal of random sign and magnitude
in [1, 2], E normal * 0.3 / sqrt(n) and P a random permutation: A is well conditioned (singular values within a
factor of about 4), so det(A) is well defined to a few ulps per factor, its sign depends on the permutation's
parity, and A's own diagonal is mostly small entries of E, so elimination without row exchanges is inaccurate;
where A[0, 0] is such a small entry it is set to exactly 0, so unpivoted elimination divides by zero there.

Scope: batches of many small matrices (n up to 64), where a Triton kernel holding each matrix in registers beats
a batched library LU; the bench takes 2^18 determinants of size 32.

Tolerance: the fp32 defaults. The determinant is a product of n pivots, each carrying a few ulps of elimination
error; the solution's largest relative difference from LAPACK is about 1.2e-6 (under 15% of the tolerance), and
a wrong sign or unpivoted elimination misses it by far.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "det",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(A)",
    "dtypes": ["float32"],
    "forbidden": ["det", "logdet", "slogdet", "lu", "lu_factor", "lu_factor_ex", "getrf", "qr", "svd", "svdvals",
                  "eig", "eigvals", "eigh", "eigvalsh", "cholesky", "solve", "inv", "prod", "cumprod", "matmul",
                  "mm", "bmm", "einsum", "@"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [6, 16, 16]}},
        {"name": "check_33", "role": "check", "params": {"shape": [3, 33, 33]}},
        {"name": "check_64", "role": "check", "params": {"shape": [2, 64, 64]}},
        {"name": "check_small_t", "role": "check", "params": {"shape": [9, 3, 3], "layout": "transposed"}},
        {"name": "check_batch_dims", "role": "check", "params": {"shape": [2, 3, 17, 17]}},
        {"name": "check_one_strided", "role": "check", "params": {"shape": [7, 1, 1], "layout": "strided"}},
        {"name": "check_strided", "role": "check", "params": {"shape": [3, 31, 31], "layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [262144, 32, 32]}},
    ],
}


def reference(A):
    return torch.linalg.det(A)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    n = shape[-1]
    d = inputs.uniform(shape[:-1], 1.0, 2.0, "float32", generator)
    d = d * inputs.uniform(shape[:-1], -1.0, 1.0, "float32", generator).sign()
    m = inputs.randn(shape, "float32", generator, scale=0.3 / math.sqrt(n)) + torch.diag_embed(d)
    perm = torch.rand(shape[:-1], generator=generator, device=generator.device).argsort(dim=-1)
    a = torch.take_along_dim(m, perm[..., None], dim=-2)
    # A zero in the corner wherever it holds a small entry: the first pivot of an unpivoted LU is then exactly 0.
    corner = a[..., :1, :1]
    a[..., :1, :1] = torch.where(corner.abs() < 0.5, torch.zeros_like(corner), corner)
    a = a.to(inputs.torch_dtype(dtype))
    return {"A": inputs.layout(a, p.get("layout", "contiguous"))}


def perturb(workload, rng):
    # Batch sizes and n (at most 63) move, never adding elements; n = 1 and the layout stay.
    shape = sizes.shape_near(rng, workload.params["shape"][:-1], cost=lambda d: math.prod(d) * d[-1])
    n = min(shape[-1], 63)
    return {**workload.params, "shape": shape[:-1] + [n, n]}
