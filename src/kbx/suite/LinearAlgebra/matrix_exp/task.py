"""Exponential of a batch of small square matrices: `torch.linalg.matrix_exp(A)`.

    exp(A) = sum_{k>=0} A^k / k!        (A is (..., N, N); the output has A's shape and dtype)

Mirrors `torch.linalg.matrix_exp(A)` on fp32 matrices. The inputs are built so that no shortcut survives:
- `mixed`: A = c G / sqrt(N), G normal, c log-uniform in [0.05, 12] per matrix, so ‖A‖₁ runs from ~0.03 to ~80:
  small norms need no scaling, large ones need up to 7 squarings, and exp(A)'s entries reach ~e^12.
- `skew`: A = c (G - Gᵀ) / sqrt(2N), c uniform in [4, 16]: exp(A) is orthogonal (entries <= 1) while ‖A‖₁ reaches
  ~100; a truncated series without scaling is off by orders of magnitude, and the result hides nothing behind a
  large entry.
- `nilpotent`: strictly upper triangular G (normal entries): exp(A) is the finite sum up to A^(N-1) / (N-1)!,
  upper unitriangular.
- `diagonal`: diag(d), d uniform in [-10, 6]: exp(A) = diag(e^d), exact zeros off the diagonal.
Sizes 1, 3, 16, 17, 31, 33 and 64 straddle the 16 / 32 / 64 tiles; batch dims, transposed and strided layouts.

Contract (`property`, scale-relative allclose, judged per matrix in float64 by `check_outputs`):

    max |X - R| <= 256 u (1 + ‖A‖₁) max |R|,        R the reference, u = 2^-24 (fp32's unit roundoff)

Why this scale: exp(A)'s entries range over many orders of magnitude within one matrix (e^-10 next to e^6 on a
diagonal, e^12 next to O(1) in `mixed`), so an element-wise rtol would demand digits no fp32 algorithm has, and
the error of any fp32 scaling-and-squaring method is a multiple of u times the largest entry. The multiple grows
with ‖A‖: the relative condition number of exp at A is at least ‖A‖ for normal A, and each of the s ≈ log2 ‖A‖₁
squarings doubles the error already present. Measured (seed 0, 4096 matrices of each kind for N = 3, 17, 32 and
1024 for N = 64, the solution's algorithm replayed in fp32 PyTorch): PyTorch's fp32 result differs from the
float64 exponential by at most 19% of the bound (3 x 3 diagonal matrices; under 4% elsewhere) and the solution
from PyTorch's result by at most 19% too (under 6% for N >= 17); the kernel itself on the check workloads stays
under 10%. A degree-12 Taylor polynomial without scaling misses large-norm matrices by 10^3 to 10^13 times the
bound, and squaring once too few misses every matrix that needed scaling by 3x to 10^4x.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "matrix_exp",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(A)",
    "dtypes": ["float32"],
    "forbidden": ["matrix_exp", "expm", "linalg_matrix_exp", "matrix_power", "eig", "eigh", "svd", "solve",
                  "inv", "lu", "lu_factor", "matmul", "mm", "bmm", "baddbmm", "addmm", "addbmm", "einsum",
                  "tensordot", "linear", "chain_matmul", "multi_dot", "@"],
    "contract": {"kind": "property", "tf32": False},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [4, 16, 16], "kind": "mixed"}},
        {"name": "check_mixed_33", "role": "check", "params": {"shape": [6, 33, 33], "kind": "mixed"}},
        {"name": "check_skew_64", "role": "check", "params": {"shape": [2, 64, 64], "kind": "skew"}},
        {"name": "check_skew_t", "role": "check", "params": {"shape": [4, 31, 31], "kind": "skew",
                                                             "layout": "transposed"}},
        {"name": "check_nilpotent", "role": "check", "params": {"shape": [2, 2, 17, 17], "kind": "nilpotent"}},
        {"name": "check_diagonal_strided", "role": "check",
         "params": {"shape": [5, 3, 3], "kind": "diagonal", "layout": "strided"}},
        {"name": "check_scalar", "role": "check", "params": {"shape": [7, 1, 1], "kind": "mixed"}},
        {"name": "bench", "role": "bench", "params": {"shape": [65536, 32, 32], "kind": "mixed"}},
    ],
}

_BOUND = 256 * 2.0 ** -24


def reference(A):
    return torch.linalg.matrix_exp(A)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, kind = p["shape"], p["kind"]
    n = shape[-1]
    g = inputs.randn(shape, "float32", generator)
    if kind == "mixed":
        c = torch.exp(inputs.uniform(shape[:-2] + [1, 1], math.log(0.05), math.log(12.0), "float32", generator))
        a = c * g / math.sqrt(n)
    elif kind == "skew":
        c = inputs.uniform(shape[:-2] + [1, 1], 4.0, 16.0, "float32", generator)
        a = c * (g - g.transpose(-1, -2)) / math.sqrt(2 * n)
    elif kind == "nilpotent":
        a = torch.triu(g, diagonal=1)
    elif kind == "diagonal":
        a = torch.diag_embed(inputs.uniform(shape[:-1], -10.0, 6.0, "float32", generator))
    else:
        raise ValueError(f"unknown kind {kind!r}")
    return {"A": inputs.layout(a.to(inputs.torch_dtype(dtype)).contiguous(), p.get("layout", "contiguous"))}


def check_outputs(outputs, inputs, expected, workload, dtype):
    """None when every matrix is within the scale-relative bound of the reference (module docstring)."""
    a = inputs["A"].double()
    n = a.shape[-1]
    x = outputs[0].to(a.device).double().reshape(-1, n, n)
    r = expected[0].to(a.device).double().reshape(-1, n, n)
    norm1 = a.abs().sum(dim=-2).amax(dim=-1).reshape(-1)
    scale = r.abs().amax(dim=(-2, -1))
    err = (x - r).abs().amax(dim=(-2, -1))
    ratio = err / (_BOUND * (1.0 + norm1) * scale)
    worst = int(ratio.argmax())
    if not bool(ratio[worst] <= 1.0):  # also catches NaN
        bad = int((~(ratio <= 1.0)).sum())
        return (f"{bad} of {ratio.numel()} matrices exceed max|X - R| <= 256 u (1 + |A|_1) max|R|; worst, matrix "
                f"{worst}: max|X - R| = {float(err[worst]):.3g}, max|R| = {float(scale[worst]):.3g}, "
                f"|A|_1 = {float(norm1[worst]):.3g} ({float(ratio[worst]):.3g}x the bound)")
    return None


def perturb(workload, rng):
    # Batch sizes and N (at most 63) move, never adding elements; N = 1, the kind and the layout stay.
    shape = sizes.shape_near(rng, workload.params["shape"][:-1], cost=lambda d: math.prod(d) * d[-1])
    n = min(shape[-1], 63)
    return {**workload.params, "shape": shape[:-1] + [n, n]}
