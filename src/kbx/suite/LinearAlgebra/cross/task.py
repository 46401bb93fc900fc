"""Cross product of 3-vectors along one dim, with broadcasting: `torch.linalg.cross(input, other, dim=-1)`.

    out[..., 0, ...] = a1 * b2 - a2 * b1
    out[..., 1, ...] = a2 * b0 - a0 * b2        (a = input, b = other, components along `dim`)
    out[..., 2, ...] = a0 * b1 - a1 * b0

Mirrors `torch.linalg.cross(input, other, dim=-1)`: `input` and `other` broadcast against each other, and both
have size 3 along `dim` (negative counts from the end). The output has the broadcast shape and the inputs' dtype.
bfloat16 inputs are multiplied and subtracted in fp32 and rounded once: the reference upcasts to fp32 and
rounds its result, because rounding each product to bf16 first (as `torch.linalg.cross` does on bf16 tensors)
loses everything when the two products nearly cancel.

Values are normal with an offset of 0.5 and a few outliers of +-30 (so the products span several magnitudes and
some cancel). Workloads put the components in the last dim (array-of-structs), the first dim (planar) and a
middle dim, broadcast either operand along the batch dims, and read transposed and strided views; lengths
straddle block sizes (127, 129, 4097). Default tolerances; fp32 results match exactly or to an ulp or two (fused
multiply-adds), far inside them.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "cross",
    "category": "LinearAlgebra",
    "level": 1,
    "signature": "(input, other, dim=-1)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["cross", "linalg_cross", "cross_product", "det", "matmul", "mm", "bmm", "einsum", "mul",
                  "multiply", "sub", "subtract", "roll", "addcmul", "@"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"input": [1000, 3], "other": [1000, 3], "dim": -1}},
        {"name": "check_tail", "role": "check", "params": {"input": [4097, 3], "other": [4097, 3], "dim": -1}},
        {"name": "check_planar", "role": "check", "params": {"input": [3, 129, 127], "other": [3, 129, 127], "dim": 0}},
        {"name": "check_broadcast", "role": "check", "params": {"input": [5, 1, 3], "other": [1, 129, 3], "dim": -1}},
        {"name": "check_middle_layouts", "role": "check",
         "params": {"input": [33, 3, 65], "other": [33, 3, 65], "dim": 1, "input_layout": "transposed",
                    "other_layout": "strided"}},
        {"name": "check_broadcast_middle", "role": "check",
         "params": {"input": [65, 3, 1], "other": [1, 3, 127], "dim": -2}},
        {"name": "bench_aos", "role": "bench", "params": {"input": [134217728, 3], "other": [134217728, 3], "dim": -1}},
        {"name": "bench_planar", "role": "bench",
         "params": {"input": [3, 8192, 16384], "other": [3, 8192, 16384], "dim": 0}},
    ],
}


def reference(input, other, dim=-1):
    if input.dtype in (torch.float16, torch.bfloat16):
        return torch.linalg.cross(input.float(), other.float(), dim=dim).to(input.dtype)
    return torch.linalg.cross(input, other, dim=dim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    tensors = {}
    for name in ("input", "other"):
        x = inputs.randn(p[name], dtype, generator, scale=2.0, offset=0.5)
        x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=30.0)
        tensors[name] = inputs.layout(x, p.get(name + "_layout", "contiguous"))
    return {**tensors, "dim": p["dim"]}


def perturb(workload, rng):
    # Batch sizes move together in both operands (1s stay: broadcast dims), the size-3 component dim stays.
    p = workload.params
    a, b = p["input"], p["other"]
    d = p["dim"] % len(a)
    full = [max(x, y) for x, y in zip(a, b)]
    moved = sizes.shape_near(rng, full, keep=[d])
    return {**p, "input": [1 if x == 1 else m for x, m in zip(a, moved)],
            "other": [1 if y == 1 else m for y, m in zip(b, moved)]}
