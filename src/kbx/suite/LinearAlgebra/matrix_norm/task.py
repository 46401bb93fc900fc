"""Matrix norm over two dims of a batch: Frobenius, max/min absolute column sum and max/min absolute row sum.

    ord='fro':  sqrt(sum_{i,j} |A[i, j]|^2)
    ord=1:      max_j sum_i |A[i, j]|          ord=-1:    min_j sum_i |A[i, j]|
    ord=inf:    max_i sum_j |A[i, j]|          ord=-inf:  min_i sum_j |A[i, j]|

Mirrors `torch.linalg.matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False)` (its `dtype` keyword is left out):
`dim` = (row dim, column dim), any two distinct dims, negative counting from the end, in either order (reversing
them transposes the matrices, swapping the roles of 1 and inf); the other dims are batch dims. The two matrix
dims are removed, or kept with size 1 when `keepdim` is True. The ords that need singular values (2, -2, 'nuc')
are not part of this task. The output has the input's dtype; bf16 is accumulated in fp32 and rounded once.

Values are normal with an offset of -0.3 and a few outliers of +-25, so signed sums differ from sums of
magnitudes and the largest column or row is not always the same one. Workloads: every ord, 2-D inputs (0-d
outputs), batches, dims that are not the trailing pair, reversed dims, keepdim, tall matrices (4097 rows), and
transposed and strided inputs. The default tolerances hold: the solution sums in a different order than PyTorch
and uses under 10% of the fp32 tolerance; in bf16 it differs by at most one ulp (under half the tolerance).
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "matrix_norm",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(A, ord='fro', dim=(-2, -1), keepdim=False)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["matrix_norm", "norm", "vector_norm", "frobenius_norm", "nuclear_norm", "renorm", "normalize",
                  "svdvals", "svd", "sum", "nansum", "mean", "amax", "amin", "max", "min", "aminmax", "abs",
                  "absolute", "square", "pow", "sqrt", "hypot", "cumsum", "logsumexp", "dot", "vdot", "inner",
                  "matmul", "mm", "bmm", "einsum", "tensordot", "@"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 33, 65], "ord": "fro"}},
        {"name": "smoke_l1", "role": "smoke", "params": {"shape": [8, 65, 33], "ord": 1}},
        {"name": "check_fro_2d", "role": "check", "params": {"shape": [129, 127], "ord": "fro"}},
        {"name": "check_l1_keepdim", "role": "check", "params": {"shape": [5, 129, 65], "ord": 1, "keepdim": True}},
        {"name": "check_inf_t", "role": "check", "params": {"shape": [3, 65, 129], "ord": "inf",
                                                             "layout": "transposed"}},
        {"name": "check_neg1_outer_dims", "role": "check",
         "params": {"shape": [33, 7, 65], "ord": -1, "dim": [0, 2]}},
        {"name": "check_neginf_reversed", "role": "check",
         "params": {"shape": [9, 65, 33], "ord": "-inf", "dim": [-1, -2], "keepdim": True, "layout": "strided"}},
        {"name": "check_inf_reversed", "role": "check", "params": {"shape": [4, 33, 127], "ord": "inf",
                                                                    "dim": [2, 1]}},
        {"name": "check_tall_fro", "role": "check", "params": {"shape": [4097, 17], "ord": "fro"}},
        {"name": "check_tall_l1", "role": "check", "params": {"shape": [2, 4097, 9], "ord": 1}},
        {"name": "bench_fro", "role": "bench", "params": {"shape": [16384, 256, 256], "ord": "fro"}},
        {"name": "bench_inf", "role": "bench", "params": {"shape": [16384, 256, 256], "ord": "inf"}},
    ],
}


def reference(A, ord="fro", dim=(-2, -1), keepdim=False):
    return torch.linalg.matrix_norm(A, ord=ord, dim=dim, keepdim=keepdim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=1.0, offset=-0.3)
    x = inputs.with_outliers(x, generator, fraction=2e-3, magnitude=25.0)
    ord = {"inf": float("inf"), "-inf": float("-inf")}.get(p["ord"], p["ord"])
    return {"A": inputs.layout(x, p.get("layout", "contiguous")), "ord": ord,
            "dim": tuple(p.get("dim", [-2, -1])), "keepdim": p.get("keepdim", False)}
