"""Cholesky factor of a batch of small symmetric positive-definite matrices: `torch.linalg.cholesky(A, upper)`.

    A = L Lᵀ,  L lower triangular with a positive diagonal        (upper=False: returns L)
                                                                  (upper=True:  returns U = Lᵀ, A = Uᵀ U)

Mirrors `torch.linalg.cholesky(A, *, upper=False)` (keyword-only there, a plain parameter here): A is (..., n, n),
real symmetric positive definite; the output has A's shape and dtype, with exact zeros in the other triangle.

Scope: batches of many small matrices (n up to 64), where a Triton kernel that holds each matrix in registers
beats a library call; the bench factors 2^18 matrices of size 32.

Conditioning: A = G Gᵀ / n + 0.5 I with G normal, made exactly symmetric, so its eigenvalues lie in about
[0.5, 4.5] and the factor is unique and well conditioned (|L| entries are O(1)). The contract is allclose with the
default fp32 tolerances: the solution's largest difference from LAPACK / cuSOLVER is a few ulps, under 10% of
the tolerance, and the wrong candidates miss by orders of magnitude. Workloads: several sizes straddling 16, 32
and 64 (1, 17, 31, 33, 64), upper and lower, several batch dims, transposed and strided inputs.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "cholesky",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(A, upper=False)",
    "dtypes": ["float32"],
    "forbidden": ["cholesky", "cholesky_ex", "cholesky_inverse", "cholesky_solve", "potrf", "lu", "lu_factor",
                  "lu_factor_ex", "ldl_factor", "ldl_factor_ex", "eigh", "eigvalsh", "svd", "qr", "sqrt", "rsqrt",
                  "tril", "triu", "matmul", "mm", "bmm", "einsum", "tensordot", "@"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [4, 16, 16], "upper": False}},
        {"name": "check_33", "role": "check", "params": {"shape": [3, 33, 33], "upper": False}},
        {"name": "check_upper_64", "role": "check", "params": {"shape": [2, 64, 64], "upper": True}},
        {"name": "check_batch_dims", "role": "check", "params": {"shape": [2, 3, 17, 17], "upper": False}},
        {"name": "check_one", "role": "check", "params": {"shape": [5, 1, 1], "upper": True}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [3, 31, 31], "upper": False, "layout": "transposed"}},
        {"name": "check_strided_upper", "role": "check",
         "params": {"shape": [2, 33, 33], "upper": True, "layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [262144, 32, 32], "upper": False}},
    ],
}


def reference(A, upper=False):
    return torch.linalg.cholesky(A, upper=upper)


def make_inputs(workload, dtype, generator):
    p = workload.params
    n = p["shape"][-1]
    g = inputs.randn(p["shape"], "float64", generator)
    a = g @ g.transpose(-1, -2) / n + 0.5 * torch.eye(n, dtype=torch.float64, device=generator.device)
    a = ((a + a.transpose(-1, -2)) / 2).to(inputs.torch_dtype(dtype))
    return {"A": inputs.layout(a, p.get("layout", "contiguous")), "upper": p["upper"]}


def perturb(workload, rng):
    # Batch sizes and n (at most 64) move, never adding elements; n = 1 and broadcast 1s stay, as do the flags.
    shape = sizes.shape_near(rng, workload.params["shape"][:-1], cost=lambda d: math.prod(d) * d[-1])
    n = min(shape[-1], 63)
    return {**workload.params, "shape": shape[:-1] + [n, n]}
