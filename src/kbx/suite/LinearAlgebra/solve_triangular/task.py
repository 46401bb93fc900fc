"""Triangular solve for a batch of small matrices: `torch.linalg.solve_triangular(A, B, upper, left, unitriangular)`.

    left=True:   find X with A X = B        (A is (..., n, n), B and X are (..., n, k))
    left=False:  find X with X A = B        (B and X are (..., k, n))

Mirrors `torch.linalg.solve_triangular(A, B, *, upper, left=True, unitriangular=False)` (keyword-only there, plain
parameters here). Only A's upper (upper=True) or lower triangle is read: the other triangle holds large garbage
that a solver must ignore. With unitriangular=True the diagonal is taken to be all ones and is not read either (it
holds values far from 1 here). Batch dims broadcast between A and B.

Scope: batches of many small systems (n up to 64), the regime where a Triton kernel holding each matrix in
registers beats a library call; the bench solves 2^17 systems of size 32 with 32 right-hand sides.

Inputs: the referenced triangle has a diagonal of random sign and magnitude in [1, 2] and off-diagonal entries
N(0, 1) * 0.5 / sqrt(n), so every system is well conditioned and X is unique; B is N(0, 1) with an offset.
Workloads cover every combination of left or right, upper or lower and a stored or unit diagonal (the right-side
unit ones in `check_right_upper_unit` and `check_right_lower_unit`), broadcast batch dims, a transposed and a
strided A, a column-major B (`check_upper`: a kernel that reads B as a dense row-major panel passed every other
workload), and n from 16 to 64. `check_diag_range_1e4` spreads the diagonal's magnitudes log-uniformly from 1
down to 1e-4 and scales each off-diagonal entry by sqrt(|d_i d_j|): cond(A) is about 1e4, the solution's entries
span four decades.

Contract: allclose against the float64 truth (docs/evaluation.md). Substitution is backward stable element by
element, and the truth's response to moved inputs measures exactly that conditioning, so the graded workload is no
harder for an honest kernel: measured on the CPU interpreter (seeds 0 and 1), the solution's worst element sits at
0.04 of its bound there, and a 50 % error fails every element. Nor did the unstable-looking variants fail it: an
inverse formed first and multiplied, and a log-depth product (I + L)(I + L²)(I + L⁴)... of the strict triangle, both
stayed within 0.07 of the bound on graded inputs of diagonal range 1e3 to 1e5. What it catches is a guard that only
bites on a wide diagonal: `wrong/diagonal_floor` (diagonal entries raised to 1e-3 of the largest) passes every other
workload and misses check_diag_range_1e4's bounds by about 1e5x.
"""

import math

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "solve_triangular",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(A, B, upper, left=True, unitriangular=False)",
    "dtypes": ["float32"],
    "forbidden": ["solve_triangular", "triangular_solve", "trsm", "solve", "solve_ex", "lu_solve", "cholesky_solve",
                  "inv", "inv_ex", "inverse", "pinv", "lstsq", "tril", "triu", "matmul", "mm", "bmm", "einsum",
                  "tensordot", "@"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"A": [4, 16, 16], "B": [4, 16, 8], "upper": False}},
        {"name": "check_upper", "role": "check",
         "params": {"A": [3, 33, 33], "B": [3, 33, 7], "upper": True, "b_layout": "transposed"}},
        {"name": "check_lower_unit", "role": "check",
         "params": {"A": [2, 17, 17], "B": [2, 17, 65], "upper": False, "unitriangular": True}},
        {"name": "check_right_upper", "role": "check",
         "params": {"A": [2, 33, 33], "B": [2, 9, 33], "upper": True, "left": False}},
        {"name": "check_right_lower_t", "role": "check",
         "params": {"A": [2, 64, 64], "B": [2, 5, 64], "upper": False, "left": False, "layout": "transposed"}},
        {"name": "check_right_upper_unit", "role": "check",
         "params": {"A": [2, 17, 17], "B": [2, 5, 17], "upper": True, "left": False, "unitriangular": True}},
        {"name": "check_right_lower_unit", "role": "check",
         "params": {"A": [2, 17, 17], "B": [2, 5, 17], "upper": False, "left": False, "unitriangular": True}},
        {"name": "check_broadcast", "role": "check",
         "params": {"A": [1, 31, 31], "B": [3, 1, 31, 1], "upper": True, "unitriangular": True}},
        {"name": "check_strided", "role": "check",
         "params": {"A": [3, 31, 31], "B": [3, 31, 3], "upper": False, "layout": "strided"}},
        {"name": "check_diag_range_1e4", "role": "check",
         "params": {"A": [4, 33, 33], "B": [4, 33, 5], "upper": False, "diag_range": 1e4}},
        {"name": "bench", "role": "bench", "params": {"A": [131072, 32, 32], "B": [131072, 32, 32], "upper": False}},
    ],
}


def reference(A, B, upper, left=True, unitriangular=False):
    return torch.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)


def make_inputs(workload, dtype, generator):
    p = workload.params
    n = p["A"][-1]
    a = inputs.randn(p["A"], "float32", generator, scale=0.5 / n ** 0.5)
    garbage = inputs.randn(p["A"], "float32", generator, scale=100.0)
    diag = inputs.uniform(p["A"][:-1], 1.0, 2.0, "float32", generator)
    sign = inputs.signs(p["A"][:-1], generator)
    if "diag_range" in p:
        # |diagonal| log-uniform from 1 down to 1/diag_range; off-diagonal entries graded by sqrt(|d_i d_j|).
        diag = p["diag_range"] ** (diag - 2.0)
        a = a * (diag[..., :, None] * diag[..., None, :]).sqrt()
    eye = torch.eye(n, dtype=torch.bool, device=generator.device)
    band = torch.ones(n, n, dtype=torch.bool, device=generator.device)
    band = band.triu(1) if p["upper"] else band.tril(-1)
    a = torch.where(band, a, garbage)
    a = torch.where(eye, torch.diag_embed(diag * sign) + (5.0 if p.get("unitriangular") else 0.0), a)
    b = inputs.randn(p["B"], "float32", generator, offset=0.5)
    a, b = a.to(inputs.torch_dtype(dtype)), b.to(inputs.torch_dtype(dtype))
    return {"A": inputs.layout(a, p.get("layout", "contiguous")),
            "B": inputs.layout(b, p.get("b_layout", "contiguous")), "upper": p["upper"],
            "left": p.get("left", True), "unitriangular": p.get("unitriangular", False)}


def perturb(workload, rng):
    # Batch sizes, n (at most 64) and the number of right-hand sides move together, never adding elements to A
    # and B; broadcast 1s, the flags and the layouts stay.
    p = workload.params
    a, b = p["A"], p["B"]
    left = p.get("left", True)
    lead = len(b) - len(a)  # B's extra leading batch dims

    def shapes(d):
        n, k, batch = d[-2], d[-1], d[:-2]
        return [1 if s == 1 else m for s, m in zip(a[:-2], batch[lead:])] + [n, n], batch + ([n, k] if left else [k, n])

    def cost(d):
        sa, sb = shapes(d)
        return math.prod(sa) + math.prod(sb)

    d = sizes.shape_near(rng, b[:-2] + [a[-1], b[-1] if left else b[-2]], at_least={-2: 3}, cost=cost)
    d[-2] = min(d[-2], 63)
    sa, sb = shapes(d)
    return {**p, "A": sa, "B": sb}
