"""Matrix-vector product with fp32 accumulation: `torch.mv(input, vec)`.

    out[m] = sum_k input[m, k] * vec[k]        (k = 0 .. K-1)

Mirrors `torch.mv`: `input` is (M, K), `vec` is (K,), both float32 or both float16, and the output is a new (M,)
tensor of that dtype. Every matrix element is used once, so this is memory-bound (GEMV): the time is the time to
read the matrix. Products are summed in fp32 (for float16, rounded once at the end).

Workloads cover odd sizes that straddle block sizes (127, 129, 65, 33), a column-major (transposed) matrix, a
matrix that is a column slice of a wider one with a strided `vec`, a long reduction (K = 9001, past any block of
8192 a kernel might hold a whole row in: one with no loop over K passed K = 4097) and many short rows. Values:
`input` is normal with a few outliers (+-8), `vec` uniform in [-2, 2), so outputs have a standard deviation of
about 1.15 * sqrt(K).

Tolerance: float32 1e-5 * sqrt(K) + 1e-5 * |ref| (the default widened with K, room for a different fp32
summation order); float16 2e-4 * sqrt(K) + 2e-3 * |ref| (two fp16 ulps, as a different fp32 order can flip the
final rounding, plus 2e-4 of the outputs' standard deviation for outputs that cancel to nearly zero). Measured:
the solution uses at most 0.11 of the float32 tolerance and 0.01 of the float16 one (CPU interpreter, seeds 0-1);
an fp16 running sum exceeds the float16 one 1.5x to 4.9x.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "mv",
    "category": "MatrixMultiply",
    "level": 1,
    "signature": "(input, vec)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@"],
    "contract": {
        "kind": "allclose",
        "tolerance": {"float32": [1e-5, 1e-5], "float16": [2e-4, 2e-3]},
        "reduction_length": "K",
        "tf32": False,
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"M": 64, "K": 96}},
        {"name": "check_odd", "role": "check", "params": {"M": 127, "K": 129}},
        {"name": "check_transposed", "role": "check", "params": {"M": 129, "K": 127, "input_layout": "transposed"}},
        {"name": "check_slice_strided_vec", "role": "check",
         "params": {"M": 65, "K": 129, "input_layout": "column_slice", "vec_layout": "strided"}},
        {"name": "check_long_k", "role": "check", "params": {"M": 33, "K": 9001}},
        {"name": "check_short_rows", "role": "check", "params": {"M": 1025, "K": 33}},
        {"name": "bench", "role": "bench", "params": {"M": 49152, "K": 32768}},
    ],
}


def reference(input, vec):
    flags = torch.backends.cuda.matmul
    saved = flags.allow_tf32, flags.allow_fp16_reduced_precision_reduction
    flags.allow_tf32 = flags.allow_fp16_reduced_precision_reduction = False
    try:
        return torch.mv(input, vec)
    finally:
        flags.allow_tf32, flags.allow_fp16_reduced_precision_reduction = saved


def _layout(x, name):
    if name == "column_slice":
        # The first K columns of an (M, K + 5) matrix: row stride K + 5.
        wide = torch.zeros((x.shape[0], x.shape[1] + 5), dtype=x.dtype, device=x.device)
        wide[:, : x.shape[1]] = x
        return wide[:, : x.shape[1]]
    return inputs.layout(x, name)


def make_inputs(workload, dtype, generator):
    p = workload.params
    a = inputs.randn([p["M"], p["K"]], dtype, generator)
    a = inputs.with_outliers(a, generator, fraction=1e-3, magnitude=8.0)
    v = inputs.uniform([p["K"]], -2.0, 2.0, dtype, generator)
    return {
        "input": _layout(a, p.get("input_layout", "contiguous")),
        "vec": inputs.layout(v, p.get("vec_layout", "contiguous")),
    }


def perturb(workload, rng):
    # M and K move together (odd, never more elements); layouts stay.
    p = workload.params
    m, k = sizes.shape_near(rng, [p["M"], p["K"]])
    return {**p, "M": m, "K": k}
