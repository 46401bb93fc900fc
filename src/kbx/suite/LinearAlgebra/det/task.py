"""Determinant of a batch of small square matrices: `torch.linalg.det(A)`.

    det(A) = sign(P) * prod_i U[i, i]        where P A = L U (LU with partial pivoting)

Mirrors `torch.linalg.det(A)`: A is (..., n, n), the output has the batch shape (...) and A's dtype. Two kinds of
input:
- Most workloads: a row permutation of a diagonally dominant matrix, A = P (D + E) with D a diagonal of random
  sign and magnitude in [1, 2], E normal * 0.3 / sqrt(n) and P a random permutation: A is well conditioned
  (singular values within a factor of about 4), its determinant's sign depends on the permutation's parity, and
  A's own diagonal is mostly small entries of E, so elimination without row exchanges is inaccurate; where A[0, 0]
  is such a small entry it is set to exactly 0, so unpivoted elimination divides by zero there.
- `check_cond_1e5` (n = 33) and `check_cond_3x3`: A = c U diag(σ) Vᵀ (`kbx.tasks.linalg.conditioned`), U and V
  random orthogonal, σ log-uniform over five decades (both ends present), so cond₂(A) = 1e5, and c chosen so
  that |det(A)| = 1 before rounding (σ from about 316 down to 1/316). det(A) is then a sum of terms far larger
  than itself: a formula that adds them (cofactors, Sarrus) loses it, while pivoted elimination errs by about
  cond(A) u.
- `check_singular`: two of four such matrices made exactly singular, one with a zero middle column (a zero pivot
  at step n // 2, after elimination has begun) and one all zeros (a zero first pivot). det(A) = 0 exactly, in any
  arithmetic; a kernel that divides by the zero pivot returns NaN (0 / 0).

Scope: batches of many small matrices (n up to 64), where a Triton kernel holding each matrix in registers beats
a batched library LU; the bench takes 2^18 determinants of size 32.

Contract: allclose against the float64 truth (docs/evaluation.md), whose allowance for moved inputs grows with
cond(A). Measured on the CPU interpreter (seeds 0 and 1): the solution's worst element sits at 0.11 of its bound
on check_cond_1e5 and 0.07 on check_cond_3x3, and a 50 % error fails every element of both. A kernel taking the
closed form for 3 x 3 (`wrong/closed_form_3x3`) passes every other workload (check_small_t: 0.003 of its bound)
and misses check_cond_3x3's by 140-930x. Static pivoting (pivots chosen from A's own magnitudes, not the updated
column) is not caught: on these inputs it stayed within 0.64 of the bound at cond 1e5, n = 33.
"""

import math

import torch

from kbx.tasks import inputs, sizes
from kbx.tasks.linalg import conditioned

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
        {"name": "check_cond_1e5", "role": "check", "params": {"shape": [3, 33, 33], "cond": 1e5}},
        {"name": "check_cond_3x3", "role": "check", "params": {"shape": [64, 3, 3], "cond": 1e5}},
        {"name": "check_singular", "role": "check", "params": {"shape": [4, 9, 9], "singular": True}},
        {"name": "bench", "role": "bench", "params": {"shape": [262144, 32, 32]}},
    ],
}


def reference(A):
    return torch.linalg.det(A)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    if "cond" in p:
        # Scaled so that |det(A)| = 1 before rounding: the singular values' geometric mean is 1.
        a = conditioned(shape, p["cond"], generator)
        a = a * torch.exp(-torch.linalg.slogdet(a).logabsdet / shape[-1])[..., None, None]
        return {"A": inputs.layout(a.to(inputs.torch_dtype(dtype)), p.get("layout", "contiguous"))}
    n = shape[-1]
    d = inputs.uniform(shape[:-1], 1.0, 2.0, "float32", generator)
    d = d * inputs.signs(shape[:-1], generator)
    m = inputs.randn(shape, "float32", generator, scale=0.3 / math.sqrt(n)) + torch.diag_embed(d)
    perm = torch.rand(shape[:-1], generator=generator, device=generator.device).argsort(dim=-1)
    a = torch.take_along_dim(m, perm[..., None], dim=-2)
    # A zero in the corner wherever it holds a small entry: the first pivot of an unpivoted LU is then exactly 0.
    corner = a[..., :1, :1]
    a[..., :1, :1] = torch.where(corner.abs() < 0.5, torch.zeros_like(corner), corner)
    if p.get("singular"):
        # Exactly singular, det(A) = 0 in any arithmetic: the first matrix's middle column and the whole last matrix
        # are zeros (a zero pivot at step n // 2 and at step 0).
        flat = a.view(-1, n, n)
        flat[0, :, n // 2] = 0.0
        flat[-1] = 0.0
    a = a.to(inputs.torch_dtype(dtype))
    return {"A": inputs.layout(a, p.get("layout", "contiguous"))}


def perturb(workload, rng):
    # Batch sizes and n (at most 63) move, never adding elements; n = 1 and the layout stay.
    shape = sizes.shape_near(rng, workload.params["shape"][:-1], cost=lambda d: math.prod(d) * d[-1])
    n = min(shape[-1], 63)
    return {**workload.params, "shape": shape[:-1] + [n, n]}
