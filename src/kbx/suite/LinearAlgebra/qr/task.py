"""QR decomposition of a batch of small matrices: `torch.linalg.qr(A, mode)`.

    A = Q R,   Qᵀ Q = I,   R upper triangular (upper trapezoidal when R has more columns than rows)

Mirrors `torch.linalg.qr(A, mode='reduced')`: A is (..., m, n) real, k = min(m, n).
- mode='reduced': Q (..., m, k) with orthonormal columns, R (..., k, n).
- mode='complete': Q (..., m, m) orthogonal, R (..., m, n).
- mode='r': R (..., k, n) only; Q is an empty tensor of shape (0,).
Outputs have A's dtype. The factors are unique only up to the signs of Q's columns (and R's rows), and not at all
where A is rank deficient, so they are never compared with the reference element by element (contract `property`,
`check_outputs` below), in float64 per matrix:
- reconstruction: ||Q R - A||_F <= 8 max(m, n) eps ||A||_F;
- orthogonality: ||Qᵀ Q - I||_F <= 8 max(m, n) eps;
- triangularity: every element of R below the diagonal is exactly 0;
- for mode='r', which has no Q: ||Rᵀ R - Aᵀ A||_F <= 8 max(m, n) eps ||A||_F^2 (R is A's Cholesky-like factor
  up to row signs), with the same triangularity.
eps is the dtype's machine epsilon (fp32 2^-23); none of the bounds depends on cond(A), because Householder QR
(the reference's and the solution's algorithm) is backward stable and keeps Q orthogonal to working precision
whatever the conditioning. Measured on the CPU interpreter over every smoke and check case (two seeds): the
solution uses at most 1.7% of the reconstruction bound and 5.4% of the orthogonality bound (LAPACK's own fp32
factors 1.2% and 6.6%). On the ill-conditioned matrices Gram-Schmidt does not come close: modified Gram-Schmidt
leaves ||Qᵀ Q - I|| at 9 to 1,800 times the bound (about eps cond(A)), classical Gram-Schmidt at 1.7e4 to 5e5
times (about eps cond(A)^2); an R that keeps the rounding residue under its diagonal fails triangularity on
every matrix.

Inputs: every other matrix (the first, third, ...) is ill conditioned on purpose, A = B C + delta G with B C of
rank about k/2 and delta between 1e-5 and 1e-3 (cond(A) of 1e4 to 1e6, where Gram-Schmidt fails); the others
are normal with an offset and outliers, and every fourth matrix (the second, sixth, ...) has an exactly zero
column (rank deficient: its reflector must be the identity, not a division by zero). Every matrix is scaled by a
random power of ten in [1e-2, 1e2]. Workloads: tall (m > n, the main case), square and wide shapes straddling
16, 32 and 64, the three modes, extra batch dims, transposed and strided inputs, a single column.

Scope: batches of many small matrices (m, n <= 64), where a kernel holding each matrix in registers beats the
library, which factors them with one batched geqrf but then builds Q with one orgqr call per matrix: that loop
costs tens of microseconds a matrix, so the benches hold only 2048 matrices of 64 x 32 and 4096 of 32 x 16
(eager PyTorch an estimated 50-100 ms; the inputs are a few tens of MB).
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "qr",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(A, mode='reduced')",
    "dtypes": ["float32"],
    "forbidden": ["qr", "geqrf", "orgqr", "ormqr", "householder_product", "svd", "svdvals", "eig", "eigh",
                  "eigvals", "eigvalsh", "lstsq", "pinv", "cholesky", "cholesky_ex", "lu", "lu_factor",
                  "lu_factor_ex", "solve", "solve_triangular", "triangular_solve", "inv", "tril", "triu",
                  "matmul", "mm", "bmm", "einsum", "tensordot", "@"],
    "contract": {"kind": "property"},
    "uncompetitive_baseline": "torch.linalg.qr on thousands of small matrices (64 x 32, 32 x 16) goes to the "
                              "general LAPACK-style routines, which are not built for such batches, and "
                              "torch.compile calls the same routine: the solution measured 1007x eager and 1110x "
                              "compile on an H200, a figure about the library, not the kernel",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [2, 32, 16]}},
        {"name": "check_64x32", "role": "check", "params": {"shape": [1, 64, 32]}},
        {"name": "check_square_33", "role": "check", "params": {"shape": [1, 33, 33]}},
        {"name": "check_wide", "role": "check", "params": {"shape": [1, 17, 33]}},
        {"name": "check_complete", "role": "check", "params": {"shape": [1, 40, 23], "mode": "complete"}},
        {"name": "check_r", "role": "check", "params": {"shape": [2, 50, 19], "mode": "r"}},
        {"name": "check_batch_dims_t", "role": "check",
         "params": {"shape": [2, 1, 20, 9], "layout": "transposed"}},
        {"name": "check_strided", "role": "check", "params": {"shape": [2, 31, 15], "layout": "strided"}},
        {"name": "check_one_column", "role": "check", "params": {"shape": [4, 29, 1]}},
        {"name": "bench", "role": "bench", "params": {"shape": [2048, 64, 32]}},
        {"name": "bench_32x16", "role": "bench", "params": {"shape": [4096, 32, 16]}},
    ],
}


def reference(A, mode='reduced'):
    return torch.linalg.qr(A, mode=mode)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    batch, (m, n) = shape[:-2], shape[-2:]
    count = math.prod(batch)
    # Well conditioned half: normal values with an offset and a few outliers.
    plain = inputs.with_outliers(inputs.randn([count, m, n], "float32", generator, offset=0.3), generator,
                                 fraction=2e-3, magnitude=8.0)
    # Ill conditioned half: a product of rank about n/2 plus a small full-rank perturbation.
    rank = max(min(m, n) // 2, 1)
    low = inputs.randn([count, m, rank], "float32", generator) @ inputs.randn([count, rank, n], "float32", generator)
    delta = 10.0 ** inputs.uniform([count, 1, 1], -5.0, -3.0, "float32", generator)
    ill = low / math.sqrt(rank) + delta * inputs.randn([count, m, n], "float32", generator)
    which = (torch.arange(count, device=generator.device) % 2 == 0)[:, None, None]
    a = torch.where(which, ill, plain)
    a = a * 10.0 ** inputs.uniform([count, 1, 1], -2.0, 2.0, "float32", generator)
    # Every fourth matrix (the second, sixth, ...: well conditioned otherwise) has an exactly zero column.
    zero_col = inputs.randint(0, n, [count], generator)
    cols = torch.arange(n, device=generator.device)
    hit = (torch.arange(count, device=generator.device) % 4 == 1)[:, None] & (cols[None, :] == zero_col[:, None])
    a = torch.where(hit[:, None, :], torch.zeros_like(a), a)
    a = a.reshape(shape).to(inputs.torch_dtype(dtype))
    return {"A": inputs.layout(a, p.get("layout", "contiguous")), "mode": p.get("mode", "reduced")}


def perturb(workload, rng):
    # Batch, m and n move (at most 64), never adding elements or work (m n min(m, n) per matrix); sizes of 1, the
    # mode and the layout stay, and a tall workload stays tall, a wide one wide.
    p = workload.params
    m, n = p["shape"][-2:]
    for _ in range(100):
        shape = sizes.shape_near(rng, p["shape"], cost=lambda d: (math.prod(d), math.prod(d) * min(d[-2:])))
        shape[-2], shape[-1] = min(shape[-2], 64), min(shape[-1], 64)
        if (shape[-2] >= shape[-1]) == (m >= n):
            return {**p, "shape": shape}
    return dict(p)


# ----- the property contract ----------------------------------------------------------------------------------

_FACTOR = 8.0
"""Bounds are _FACTOR * max(m, n) * eps (relative to ||A||_F, or ||A||_F^2 for mode='r')."""
_CHUNK = 4096
"""Matrices checked at once (float64 temporaries of a few tens of MB)."""


def check_outputs(outputs, inputs, expected, workload, dtype):
    """None when (Q, R) is a QR decomposition of A to working precision, else why not (module docstring)."""
    q, r = outputs
    a = inputs["A"]
    mode = inputs["mode"]
    m, n = a.shape[-2:]
    bound = _FACTOR * max(m, n) * torch.finfo(a.dtype).eps
    a3 = a.reshape(-1, m, n)
    r3 = r.to(a.device).reshape(-1, *r.shape[-2:])
    if not (bool(torch.isfinite(r3).all()) and bool(torch.isfinite(q).all())):
        return "Q or R has non-finite elements"
    below = torch.ones(r3.shape[-2:], dtype=torch.bool, device=a.device).tril(-1)
    nonzero = int((r3[:, below] != 0).sum())
    if nonzero:
        return f"R has {nonzero} nonzero elements below its diagonal (R must be exactly upper triangular)"
    q3 = q.to(a.device).reshape(-1, *q.shape[-2:]) if mode != "r" else None
    worst_rec = worst_orth = 0.0
    for start in range(0, a3.shape[0], _CHUNK):
        ac = a3[start:start + _CHUNK].double()
        rc = r3[start:start + _CHUNK].double()
        norm_a = torch.linalg.matrix_norm(ac).clamp_min(1e-300)
        if q3 is None:
            gram = torch.matmul(ac.mT, ac)
            rec = torch.linalg.matrix_norm(torch.matmul(rc.mT, rc) - gram) / norm_a**2
        else:
            qc = q3[start:start + _CHUNK].double()
            rec = torch.linalg.matrix_norm(torch.matmul(qc, rc) - ac) / norm_a
            eye = torch.eye(qc.shape[-1], dtype=torch.float64, device=a.device)
            orth = torch.linalg.matrix_norm(torch.matmul(qc.mT, qc) - eye)
            worst_orth = max(worst_orth, float(orth.max()))
        worst_rec = max(worst_rec, float(rec.max()))
    what = "||R^T R - A^T A|| / ||A||^2" if q3 is None else "||Q R - A|| / ||A||"
    if not worst_rec <= bound:
        return f"{what} reaches {worst_rec:.3g}, bound {bound:.3g}"
    if not worst_orth <= bound:
        return f"||Q^T Q - I|| reaches {worst_orth:.3g}, bound {bound:.3g} (Q's columns are not orthonormal)"
    return None
