"""LU factorisation with partial pivoting of a batch of small matrices: `torch.linalg.lu_factor(A, pivot=pivot)`.

    P A = L U    (LAPACK getrf): L unit lower triangular (m x k), U upper triangular (k x n), k = min(m, n)

Mirrors `torch.linalg.lu_factor(A, *, pivot=True)` (keyword-only there, a plain parameter here): A is (..., m, n)
real; returns (LU, pivots). LU has A's shape and dtype and packs both factors: U on and above the diagonal, L's
multipliers strictly below it (L's unit diagonal is implicit). pivots is int32 (..., k) in LAPACK's convention:
1-based, and step j exchanged rows j and pivots[j] - 1, in order j = 0, 1, ..., k - 1. All workloads use
pivot=True (PyTorch's CPU backend has no unpivoted LU).

Which row wins a pivot search is decided by rounding wherever two candidates are close, so neither the pivots nor
the factors are compared with the reference element by element (contract `property`, `check_outputs` below); per
matrix, in float64:
- pivots in range: j + 1 <= pivots[j] <= m (1-based; a row exchange never reaches back above step j);
- partial pivoting: every multiplier |L[i, j]| <= 1 + 2^-16 (the pivot is the column's largest entry; the slack
  covers a kernel that multiplies by a rounded reciprocal);
- reconstruction: replaying the row exchanges on A, ||L U - P A||_F <= 8 max(m, n) eps ||A||_F, eps the dtype's
  machine epsilon (fp32 2^-23); LU with partial pivoting is backward stable, so the bound does not depend on
  cond(A) (growth stays small on these inputs).
Measured on the CPU interpreter over every smoke and check case: the solution uses at most 5% of the
reconstruction bound (LAPACK's fp32 factors 5% as well) and its multipliers never exceed 1. Elimination without
row exchanges divides by the exact zero in a corner (NONFINITE); 0-based pivots leave the range (and replay the
wrong exchanges); exchanging only the not-yet-eliminated part of the rows leaves L's earlier multipliers in the
wrong rows, a reconstruction error of order 1.

Inputs, by matrix index mod 4: (0) a row permutation of a diagonally dominant matrix with A[0, 0] set to exactly 0
where m > 1 (no pivoting divides by zero; the diagonal holds small entries, so elimination must exchange rows
throughout); (1) ill conditioned, B C + delta G with B C of rank about k/2 and delta in [1e-5, 1e-3] (cond 1e4 to
1e6, still nonsingular in fp32); (2) normal with an offset and outliers, with an exact tie in magnitude (opposite
signs) for the largest entry of the first column; (3) normal with A[0, 0] shrunk by 1e-6 (a tiny, nonzero leading
pivot). Each matrix is scaled by a random power of ten in [1e-2, 1e2]. Workloads: square sizes straddling 16, 32 and
64, tall and wide shapes, extra batch dims, transposed and strided inputs.

Scope: batches of many small matrices (m, n <= 64), where a kernel holding each matrix in registers beats the
library's batched getrf; the benches factor 2^18 matrices of 32 x 32 and 2^15 of 64 x 64.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "lu_factor",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(A, pivot=True)",
    "dtypes": ["float32"],
    "forbidden": ["lu", "lu_factor", "lu_factor_ex", "lu_unpack", "lu_solve", "getrf", "det", "slogdet", "logdet",
                  "solve", "solve_ex", "inv", "inv_ex", "qr", "svd", "cholesky", "ldl_factor", "ldl_factor_ex",
                  "solve_triangular", "triangular_solve", "tril", "triu", "matmul", "mm", "bmm", "einsum",
                  "tensordot", "@"],
    "contract": {"kind": "property"},
    "defaults_kept": {
        "pivot": "pivot=False is not implemented by PyTorch on the CPU (it raises), so no reference exists there, "
                 "and without pivoting LU breaks down on the general matrices the task draws",
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [4, 16, 16]}},
        {"name": "check_33", "role": "check", "params": {"shape": [3, 33, 33]}},
        {"name": "check_64", "role": "check", "params": {"shape": [1, 64, 64]}},
        {"name": "check_tall", "role": "check", "params": {"shape": [4, 40, 17]}},
        {"name": "check_wide", "role": "check", "params": {"shape": [4, 17, 40]}},
        {"name": "check_batch_dims_t", "role": "check",
         "params": {"shape": [2, 2, 17, 17], "layout": "transposed"}},
        {"name": "check_strided", "role": "check", "params": {"shape": [4, 15, 15], "layout": "strided"}},
        {"name": "check_tiny", "role": "check", "params": {"shape": [8, 2, 2]}},
        {"name": "bench", "role": "bench", "params": {"shape": [262144, 32, 32]}},
        {"name": "bench_64", "role": "bench", "params": {"shape": [32768, 64, 64]}},
    ],
}


def reference(A, pivot=True):
    return torch.linalg.lu_factor(A, pivot=pivot)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    batch, (m, n) = shape[:-2], shape[-2:]
    count, k = math.prod(batch), min(m, n)
    dev = generator.device
    kind = (torch.arange(count, device=dev) % 4)[:, None, None]
    rows = torch.arange(m, device=dev)[None, :, None]
    cols = torch.arange(n, device=dev)[None, None, :]
    corner = (rows == 0) & (cols == 0) & (m > 1)  # a 1-row matrix has no row to exchange with: no zero there
    # (0) Rows of a diagonally dominant matrix, permuted, with an exact zero in the corner.
    sign = inputs.signs([count, k], generator)
    diag = torch.zeros(count, m, n, device=dev)
    diag[:, :k, :k] = torch.diag_embed(inputs.uniform([count, k], 1.0, 2.0, "float32", generator) * sign)
    dominant = diag + inputs.randn([count, m, n], "float32", generator, scale=0.3 / math.sqrt(max(m, n)))
    perm = torch.rand(count, m, generator=generator, device=dev).argsort(dim=-1)
    dominant = torch.where(corner, 0.0, torch.take_along_dim(dominant, perm[..., None], dim=-2))
    # (1) Ill conditioned: rank about k/2 plus a small full-rank perturbation.
    rank = max(k // 2, 1)
    low = inputs.randn([count, m, rank], "float32", generator) @ inputs.randn([count, rank, n], "float32", generator)
    delta = 10.0 ** inputs.uniform([count, 1, 1], -5.0, -3.0, "float32", generator)
    ill = low / math.sqrt(rank) + delta * inputs.randn([count, m, n], "float32", generator)
    # (2) and (3) Normal values with an offset and outliers.
    plain = inputs.with_outliers(inputs.randn([count, m, n], "float32", generator, offset=0.2), generator,
                                 fraction=2e-3, magnitude=6.0)
    # (2) The largest |entry| of column 0 appears twice, with opposite signs (a tie for the first pivot).
    first = plain[:, :, 0].abs()
    top = first.argmax(dim=-1)
    other = (top + 1 + inputs.randint(0, max(m - 1, 1), [count], generator)) % m
    value = plain[torch.arange(count, device=dev), top, 0]
    tied = plain.clone()
    tied[torch.arange(count, device=dev), other, 0] = -value
    # (3) A tiny leading pivot.
    tiny = torch.where(corner, plain * 1e-6, plain)
    a = torch.where(kind == 0, dominant, torch.where(kind == 1, ill, torch.where(kind == 2, tied, tiny)))
    a = a * 10.0 ** inputs.uniform([count, 1, 1], -2.0, 2.0, "float32", generator)
    a = a.reshape(shape).to(inputs.torch_dtype(dtype))
    return {"A": inputs.layout(a, p.get("layout", "contiguous")), "pivot": p.get("pivot", True)}


def perturb(workload, rng):
    # Batch, m and n move (at most 64), never adding elements or work (m n min(m, n) per matrix); sizes of 1 and
    # the layout stay, a square workload stays square, a tall one tall and a wide one wide.
    p = workload.params
    m, n = p["shape"][-2:]
    if m == n:
        shape = sizes.shape_near(rng, p["shape"][:-1], cost=lambda d: (math.prod(d) * d[-1], math.prod(d) * d[-1]**2))
        size = min(shape[-1], 64)
        return {**p, "shape": shape[:-1] + [size, size]}
    for _ in range(100):
        shape = sizes.shape_near(rng, p["shape"], cost=lambda d: (math.prod(d), math.prod(d) * min(d[-2:])))
        shape[-2], shape[-1] = min(shape[-2], 64), min(shape[-1], 64)
        if (shape[-2] > shape[-1]) == (m > n):
            return {**p, "shape": shape}
    return dict(p)


# ----- the property contract ----------------------------------------------------------------------------------

_FACTOR = 8.0
"""The reconstruction bound is _FACTOR * max(m, n) * eps, relative to ||A||_F."""
_MULTIPLIER = 1.0 + 2.0**-16
"""The largest |L[i, j]| partial pivoting allows, with a little slack for a rounded reciprocal."""
_CHUNK = 4096
"""Matrices checked at once (float64 temporaries of a few tens of MB)."""


def check_outputs(outputs, inputs, expected, workload, dtype):
    """None when (LU, pivots) is an LU factorisation of A with partial pivoting, else why not (module docstring)."""
    lu, pivots = outputs
    a = inputs["A"]
    m, n = a.shape[-2:]
    k = min(m, n)
    dev = a.device
    a3 = a.reshape(-1, m, n)
    lu3 = lu.to(dev).reshape(-1, m, n)
    piv = pivots.to(dev).reshape(-1, k).long()
    if not bool(torch.isfinite(lu3).all()):
        return "LU has non-finite elements"
    steps = torch.arange(k, device=dev)
    out_of_range = int(((piv < steps + 1) | (piv > m)).sum())
    if out_of_range:
        first = int(((piv < steps + 1) | (piv > m)).nonzero()[0][-1])
        return (f"{out_of_range} pivots out of range (pivots[j] must lie in [j + 1, m] = [{first + 1}, {m}], "
                "1-based)")
    strictly_lower = torch.ones(m, k, dtype=torch.bool, device=dev).tril(-1)
    upper = torch.ones(k, n, dtype=torch.bool, device=dev).triu()
    eye = torch.eye(m, k, dtype=torch.float64, device=dev)
    bound = _FACTOR * max(m, n) * torch.finfo(a.dtype).eps
    worst_mult = worst_rec = 0.0
    for start in range(0, a3.shape[0], _CHUNK):
        ac = a3[start:start + _CHUNK].double()
        fc = lu3[start:start + _CHUNK].double()
        lower = torch.where(strictly_lower, fc[:, :, :k], 0.0)
        worst_mult = max(worst_mult, float(lower.abs().max()) if lower.numel() else 0.0)
        u = torch.where(upper, fc[:, :k, :], 0.0)
        # Replay the row exchanges on the row order: row j and row pivots[j] - 1 trade places, j = 0, 1, ...
        order = torch.arange(m, device=dev).repeat(ac.shape[0], 1)
        for j in range(k):
            target = piv[start:start + _CHUNK, j:j + 1] - 1
            row_j, row_t = order[:, j:j + 1].clone(), order.gather(1, target)
            order[:, j:j + 1] = row_t
            order.scatter_(1, target, row_j)
        pa = ac.gather(1, order[:, :, None].expand(-1, -1, n))
        rec = torch.linalg.matrix_norm(torch.matmul(lower + eye, u) - pa)
        worst_rec = max(worst_rec, float((rec / torch.linalg.matrix_norm(ac).clamp_min(1e-300)).max()))
    if not worst_mult <= _MULTIPLIER:
        return (f"a multiplier |L[i, j]| reaches {worst_mult:.4g} (partial pivoting keeps every |L[i, j]| <= 1: "
                "the pivot must be the largest entry of its column)")
    if not worst_rec <= bound:
        return f"||L U - P A|| / ||A|| reaches {worst_rec:.3g}, bound {bound:.3g}"
    return None
