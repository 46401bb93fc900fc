"""Least-squares solution of a batch of small overdetermined systems: `torch.linalg.lstsq(A, B).solution`.

    X = argmin_X ‖A X - B‖_F,  i.e. Aᵀ A X = Aᵀ B        (A (..., m, n), m >= n, full column rank; B (..., m, k))

Mirrors the `solution` field of `torch.linalg.lstsq(A, B, rcond=None, *, driver=None)` (driver keyword-only
there, a plain parameter here): the entry point returns only the solution tensor, shape (..., n, k), because
lstsq's other fields (residuals, rank, singular_values) depend on the driver and are empty for some. For a
full-column-rank A the solution is unique, so rcond and driver do not change it. Batch dims broadcast between A
and B; B is a matrix (the vector form of B is not part of this task).

Inputs: A = s U diag(σ) Vᵀ with U (m x n) and V (n x n) random orthonormal, σ from 1 down to 1/κ (log-uniform in
between, both ends present) and a per-matrix scale s log-uniform in [0.1, 10]: cond(A) = κ exactly (κ = 100,
and 1000 in one workload), entries of any size. B = A X0 + ρ E with X0 and E normal: the residual A X - B is
not zero (ρ = 0.5; one workload has ρ = 0, a consistent system), so solving only m' < m of the equations gives a
different answer. Sizes straddle the tiles: m in {16, 17, 24, 33, 64, 129}, n in {1, 8, 16, 17, 33}, k in {1, 3, 4, 5};
batch dims, broadcasting, transposed and strided layouts.

Contract (`property`, judged per system in float64 by `check_outputs`, u = 2^-24, norms Frobenius, R = A X - B):
- the normal equations:   ‖Aᵀ R‖ <= 16 u (‖A‖² ‖X‖ + ‖A‖ ‖B‖),
  what a backward-stable solver guarantees (X is the exact solution for A and B moved by O(u) relatively);
- the reference solution:  ‖X - X_ref‖ <= 16 u (κ + κ² ‖R_ref‖ / (‖A‖₂ ‖X_ref‖)) ‖X_ref‖ + 64 u ‖A‖₂⁻¹ ‖B‖,
  the first-order perturbation bound of least squares for O(u) relative changes of A and B (κ = cond₂(A) from
  the eigenvalues of AᵀA in float64); the last term covers X_ref ≈ 0.
Measured (seeds 0 and 1): the kernel on the check workloads uses at most 11% of the normal-equations bound and
5% of the forward bound; its algorithm replayed in fp32 PyTorch on 4096 systems each of 64 x 16 (κ = 100 and
1000), 129 x 33, 17 x 17 and 24 x 1 at most 17% and 7%; PyTorch's own fp32 result uses at most 14% of the first
and is within 6% of the second from the float64 solution. A solve with Rᵀ in place of R, or one that keeps only
the first n rows of A and B, misses the normal-equations bound by 10^3x or more.
"""

import math

import torch

from kbx.tasks import inputs, sizes
from kbx.tasks.linalg import conditioned, in_chunks

TASK = {
    "name": "lstsq",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(A, B, rcond=None, driver=None)",
    "dtypes": ["float32"],
    "forbidden": ["lstsq", "gels", "gelsy", "gelsd", "gelss", "pinv", "pinverse", "qr", "geqrf", "ormqr",
                  "householder_product", "orgqr", "solve", "solve_ex", "solve_triangular", "triangular_solve",
                  "cholesky", "cholesky_ex", "cholesky_solve", "lu", "lu_factor", "lu_solve", "inv", "inv_ex",
                  "inverse", "svd", "eigh", "matmul", "mm", "bmm", "baddbmm", "einsum", "tensordot", "@"],
    "contract": {"kind": "property"},
    "defaults_kept": {
        "rcond": "a cut-off for the rank-revealing drivers (gelsy, gelsd, gelss); the inputs have full column rank "
                 "(condition numbers up to 1e3), so any cut-off below 1/cond gives the same solution",
        "driver": "picks the LAPACK routine on the CPU (CUDA has only 'gels'): the same least-squares problem, "
                  "so a candidate's kernel is judged on the solution, not on which routine it mirrors",
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"A": [2, 24, 8], "B": [2, 24, 3]}},
        {"name": "check_64x17", "role": "check", "params": {"A": [2, 64, 17], "B": [2, 64, 4]}},
        {"name": "check_129x33_t", "role": "check",
         "params": {"A": [1, 129, 33], "B": [1, 129, 5], "layout": "transposed"}},
        {"name": "check_cond_1000", "role": "check", "params": {"A": [2, 64, 16], "B": [2, 64, 4], "cond": 1000.0}},
        {"name": "check_square_strided", "role": "check",
         "params": {"A": [2, 17, 17], "B": [2, 17, 3], "layout": "strided"}},
        {"name": "check_broadcast", "role": "check", "params": {"A": [1, 2, 33, 8], "B": [2, 1, 33, 1]}},
        {"name": "check_consistent", "role": "check", "params": {"A": [5, 16, 1], "B": [5, 16, 4], "noise": 0.0}},
        {"name": "bench", "role": "bench", "params": {"A": [65536, 64, 16], "B": [65536, 64, 4]}},
    ],
}

_U = 2.0 ** -24


def reference(A, B, rcond=None, driver=None):
    # driver=None picks gels on CUDA but gelsy on the CPU, whose result is not bit-reproducible from run to run;
    # for full-rank A every driver gives the same solution up to rounding, so the reference asks for gels.
    return torch.linalg.lstsq(A, B, rcond=rcond, driver="gels" if driver is None else driver).solution


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape_a, shape_b = p["A"], p["B"]
    m, n = shape_a[-2:]
    unit = conditioned(shape_a, p.get("cond", 100.0), generator)
    scale = torch.exp(inputs.uniform(shape_a[:-2] + [1, 1], math.log(0.1), math.log(10.0), "float64", generator))
    a = (scale * unit).to(inputs.torch_dtype(dtype))
    x0 = inputs.randn(shape_b[:-2] + [n, shape_b[-1]], "float64", generator)
    e = inputs.randn(shape_b, "float64", generator, scale=p.get("noise", 0.5))
    b = a.double() @ x0 + e * scale
    for dim, size in enumerate(shape_b[:-2]):  # B's broadcast 1s: keep the first system along that dim
        b = b.narrow(dim, 0, size)
    b = b.to(inputs.torch_dtype(dtype))
    layout = p.get("layout", "contiguous")
    return {"A": inputs.layout(a.contiguous(), layout), "B": inputs.layout(b.contiguous(), layout)}


def check_outputs(outputs, inputs, expected, workload, dtype):
    """None when every system meets both bounds of the module docstring, else why not."""
    ratios, kappa = _ratios(outputs[0], expected[0], inputs["A"], inputs["B"])
    for name, ratio in zip(("normal-equations residual |A^T (A X - B)|", "distance to the reference solution "
                            "|X - X_ref|"), ratios):
        worst = int(ratio.nan_to_num(float("inf")).argmax())
        if not bool(ratio[worst] <= 1.0):  # also catches NaN
            bad = int((~(ratio <= 1.0)).sum())
            return (f"{bad} of {ratio.numel()} systems exceed the bound on the {name}; worst, system {worst}: "
                    f"{float(ratio[worst]):.3g}x the bound (cond(A) = {float(kappa[worst]):.3g})")
    return None


def _ratios(x, x_ref, a, b):
    """Per system, in float64: (normal-equations residual, distance to x_ref) over their bounds, and cond(A)."""
    a, b = a.double(), b.double()
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    m, n, k = a.shape[-2], a.shape[-1], b.shape[-1]
    a = a.expand(*batch, m, n).reshape(-1, m, n)
    b = b.expand(*batch, m, k).reshape(-1, m, k)
    x = x.to(a.device).double().reshape(-1, n, k)
    x_ref = x_ref.to(a.device).double().reshape(-1, n, k)
    norm_a, norm_b, norm_x, norm_xr = (t.flatten(1).norm(dim=1) for t in (a, b, x, x_ref))
    ne = (a.transpose(-1, -2) @ (a @ x - b)).flatten(1).norm(dim=1)
    ne_ratio = ne / (16 * _U * (norm_a ** 2 * norm_x + norm_a * norm_b))
    eig = in_chunks(torch.linalg.eigvalsh, a.transpose(-1, -2) @ a).clamp_min(0)
    s_max, s_min = eig[:, -1].sqrt(), eig[:, 0].sqrt()
    kappa = s_max / s_min
    r_ref = (a @ x_ref - b).flatten(1).norm(dim=1)
    fwd_bound = 16 * _U * (kappa + kappa ** 2 * r_ref / (s_max * norm_xr)) * norm_xr + 64 * _U * norm_b / s_min
    return (ne_ratio, (x - x_ref).flatten(1).norm(dim=1) / fwd_bound), kappa


def perturb(workload, rng):
    # The broadcast batch sizes, m, n (n <= m) and k move, never adding elements to A or B; each operand's
    # broadcast 1s, cond, noise and the layout stay.
    p = workload.params
    a, b = p["A"], p["B"]

    def shapes(d):
        m, n, k, batch = d[-3], min(d[-2], d[-3]), d[-1], d[:-3]
        return ([1 if s == 1 else t for s, t in zip(a[:-2], batch)] + [m, n],
                [1 if s == 1 else t for s, t in zip(b[:-2], batch)] + [m, k])

    def cost(d):
        sa, sb = shapes(d)
        return math.prod(sa), math.prod(sb)

    batch = [max(s, t) for s, t in zip(a[:-2], b[:-2])]
    new_a, new_b = shapes(sizes.shape_near(rng, batch + [a[-2], a[-1], b[-1]], cost=cost))
    return {**p, "A": new_a, "B": new_b}
