"""Outer product of two vectors: `torch.outer(input, vec2)`.

    out[i, j] = input[i] * vec2[j]        (i < n, j < m)

Mirrors `torch.outer(input, vec2)` (alias `torch.ger`): `input` is (n,), `vec2` is (m,), both of the task dtype,
and the output is the (n, m) matrix of the same dtype. There is no reduction: each output element is one product,
rounded once to the output dtype (fp16 and bf16 products are exact in fp32, so computing in fp32 and rounding
gives the same bits as PyTorch). It does one multiplication per element written, so the time is the time to write
the n * m output: a write-bandwidth-bound op.

Workloads cover sizes that straddle tile boundaries in both directions (127 x 4097, 1025 x 33), and vectors that
are views, not contiguous buffers: every other element of a wider buffer (a strided slice `x[::2]`) and a column
of a row-major matrix (`mat[:, j]`, stride = the row length). Values: `input` normal with an offset of 0.5,
`vec2` uniform in [-3, 3), both with exact zeros and 2% outliers of +-300, so some fp16 products (300 * 300 =
9e4) overflow to +-inf exactly as PyTorch's do, and a kernel that swaps or misreads either vector fails.

Tolerance: the defaults; one rounding of an exactly computed product leaves nothing else to absorb.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "outer",
    "category": "MatrixMultiply",
    "level": 1,
    "signature": "(input, vec2)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["outer", "ger", "mul", "multiply", "rmul", "imul", "addr", "kron", "einsum", "tensordot",
                  "matmul", "rmatmul", "mm", "bmm", "baddbmm", "addmm", "linear", "@"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"n": 100, "m": 200}},
        {"name": "check_tail", "role": "check", "params": {"n": 127, "m": 4097}},
        {"name": "check_tall", "role": "check", "params": {"n": 1025, "m": 33}},
        {"name": "check_strided_slices", "role": "check",
         "params": {"n": 129, "m": 127, "input_layout": "strided", "vec2_layout": "strided"}},
        {"name": "check_matrix_column", "role": "check",
         "params": {"n": 65, "m": 257, "vec2_layout": "column"}},
        {"name": "bench", "role": "bench", "params": {"n": 32768, "m": 49152}},
        {"name": "bench_over_2_31", "role": "bench", "min_gpu_gib": 139, "timed": False,
         "params": {"n": 46341, "m": 46341}},
    ],
}


def reference(input, vec2):
    return torch.outer(input, vec2)


def _vector(x, name, generator):
    """x laid out as named: its own buffer, every other element of a wider one, or a column of a matrix."""
    if name == "column":
        # Column 3 of a row-major (len, 7) matrix: stride 7, and the rest of each row is noise.
        mat = inputs.randn([x.shape[0], 7], x.dtype, generator, scale=100.0)
        mat[:, 3] = x
        return mat[:, 3]
    return inputs.layout(x, name)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn([p["n"]], dtype, generator, offset=0.5)
    y = inputs.uniform([p["m"]], -3.0, 3.0, dtype, generator)
    x = inputs.with_outliers(x, generator, fraction=0.02, magnitude=300.0)
    y = inputs.with_outliers(y, generator, fraction=0.02, magnitude=300.0)
    x[::11] = 0.0
    y[5::13] = 0.0
    return {
        "input": _vector(x, p.get("input_layout", "contiguous"), generator),
        "vec2": _vector(y, p.get("vec2_layout", "contiguous"), generator),
    }


def perturb(workload, rng):
    # n and m move together (odd, never more elements); the layouts stay.
    p = workload.params
    n, m = sizes.shape_near(rng, [p["n"], p["m"]])
    return {**p, "n": n, "m": m}
