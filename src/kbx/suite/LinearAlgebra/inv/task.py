"""Inverse of a batch of small square matrices: `torch.linalg.inv(A)`.

    X = A⁻¹, i.e. A X = X A = I        (A and X are (..., n, n))

Mirrors `torch.linalg.inv(A)`: the output has A's shape and dtype. Two kinds of input:
- Most workloads: a row permutation of a diagonally dominant matrix, A = P (D + E) with D a diagonal of random sign
  and magnitude in [1, 2], E normal * 0.3 / sqrt(n) and P a random permutation. A is well conditioned (singular
  values within a factor of about 4), so A⁻¹ has O(1) entries, while A's own diagonal is mostly small entries of E;
  where A[0, 0] is such a small entry it is set to exactly 0, so elimination without row exchanges divides by zero.
- `check_cond_1e4`: A = U diag(σ) Vᵀ (`kbx.tasks.linalg.conditioned`), U and V random orthogonal, σ log-uniform
  from 1 down to 1e-4 with both ends present, so cond₂(A) = 1e4 and A⁻¹ has entries up to about 1e4. Any method
  whose error grows faster than cond(A) u shows here: the normal equations (cond²), or an iteration run a count
  of times that suffices only for well-conditioned A.

Scope: batches of many small matrices (n up to 64), where a Triton kernel holding each matrix in registers beats
a batched library LU; the bench inverts 2^17 matrices of size 32.

Contract: allclose against the float64 truth (docs/evaluation.md). The truth's response to inputs moved by a few
ulps grows with cond(A), so the ill-conditioned workload allows a backward-stable kernel its cond(A) u error and
no more. Measured on the CPU interpreter (seeds 0 and 1): the solution's worst element sits at 0.16 of its bound
on check_cond_1e4; a 50 % error would pass on at most 0.5 % of its elements (cond 1e5 would leave 1.8-2.6 %
unchecked, hence 1e4). `wrong/newton_schulz_fixed_iterations` (24 steps, enough when cond(A) <= 4) passes every
other workload (worst element 0.10 of its bound) and misses check_cond_1e4's by 460-510x;
`wrong/normal_equations` misses it by 4,700-11,000x, and already fails some well-conditioned cases by a little.
"""

import math

import torch

from kbx.tasks import inputs, sizes
from kbx.tasks.linalg import conditioned

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
        {"name": "check_cond_1e4", "role": "check", "params": {"shape": [4, 33, 33], "cond": 1e4}},
        {"name": "bench", "role": "bench", "params": {"shape": [131072, 32, 32]}},
    ],
}


def reference(A):
    return torch.linalg.inv(A)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    if "cond" in p:
        return {"A": inputs.layout(conditioned(shape, p["cond"], generator).to(inputs.torch_dtype(dtype)),
                                   p.get("layout", "contiguous"))}
    n = shape[-1]
    d = inputs.uniform(shape[:-1], 1.0, 2.0, "float32", generator)
    d = d * inputs.signs(shape[:-1], generator)
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
