"""Pointwise multiply-accumulate: input plus a scaled elementwise product of two tensors, with broadcasting.

    addcmul(input, tensor1, tensor2, value) = input + value * tensor1 * tensor2

Mirrors `torch.addcmul(input, tensor1, tensor2, value=value)`. The three tensors have the same dtype and broadcast
together by PyTorch's rules; the output has the broadcast shape and that dtype. PyTorch computes the expression
in fp32 for fp16 and rounds once; `value` is a Python number (default 1).

Values: `input` has an offset and outliers, `tensor1` is normal, `tensor2` holds signed values in [-1.5, 2.5).
Workloads use value 1 (the default), 0.5, -2 and 0.25, and broadcast each operand in turn (rows, columns, 0-d,
outer, a 3-D `input` with 2-D and 1-D factors), with transposed and strided operands.

The values of `value` are powers of two on purpose: PyTorch's CPU kernel rounds `value * (product)` to the dtype on
a few elements (the scalar tail of its vector loop) where its CUDA kernel keeps fp32; with power-of-two values both
are exact and the reference does not depend on the device.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "addcmul",
    "category": "Math",
    "level": 1,
    "signature": "(input, tensor1, tensor2, value=1)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["addcmul", "addcdiv", "mul", "multiply", "add", "lerp", "addmm", "baddbmm", "einsum"],
    "contract": {"kind": "allclose"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "t1_shape": [1000], "t2_shape": [1000]}},
        {"name": "smoke_bcast", "role": "smoke",
         "params": {"shape": [8, 100], "t1_shape": [8, 100], "t2_shape": [100], "value": 0.5}},
        {"name": "check_same_2d", "role": "check",
         "params": {"shape": [129, 127], "t1_shape": [129, 127], "t2_shape": [129, 127], "value": -2.0}},
        {"name": "check_t2_row", "role": "check",
         "params": {"shape": [127, 129], "t1_shape": [127, 129], "t2_shape": [1, 129]}},
        {"name": "check_t2_col", "role": "check",
         "params": {"shape": [129, 127], "t1_shape": [129, 127], "t2_shape": [129, 1], "value": 0.25}},
        {"name": "check_t1_col_input_row", "role": "check",
         "params": {"shape": [127], "t1_shape": [129, 1], "t2_shape": [129, 127], "value": 0.5}},
        {"name": "check_outer", "role": "check",
         "params": {"shape": [65, 129], "t1_shape": [65, 1], "t2_shape": [1, 129]}},
        {"name": "check_t2_0d", "role": "check",
         "params": {"shape": [4097], "t1_shape": [4097], "t2_shape": [], "value": -2.0}},
        {"name": "check_3d", "role": "check",
         "params": {"shape": [3, 33, 65], "t1_shape": [33, 65], "t2_shape": [33, 1]}},
        {"name": "check_noncontig", "role": "check",
         "params": {"shape": [129, 127], "t1_shape": [129, 127], "t2_shape": [129, 127], "value": 0.5,
                    "layout": "transposed", "t1_layout": "strided", "t2_layout": "transposed"}},
        {"name": "check_noncontig_bcast", "role": "check",
         "params": {"shape": [3, 33, 65], "t1_shape": [3, 33, 65], "t2_shape": [33, 65],
                    "layout": "strided", "t1_layout": "transposed", "t2_layout": "strided"}},
        {"name": "bench_same", "role": "bench",
         "params": {"shape": [16384, 16384], "t1_shape": [16384, 16384], "t2_shape": [16384, 16384], "value": 0.5}},
        {"name": "bench_t2_row", "role": "bench",
         "params": {"shape": [16384, 32768], "t1_shape": [16384, 32768], "t2_shape": [32768]}},
    ],
}


def reference(input, tensor1, tensor2, value=1):
    return torch.addcmul(input, tensor1, tensor2, value=value)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=30.0)
    t1 = inputs.randn(p["t1_shape"], dtype, generator, scale=1.5, offset=-0.25)
    t2 = inputs.uniform(p["t2_shape"], -1.5, 2.5, dtype, generator)
    return {
        "input": inputs.layout(x, p.get("layout", "contiguous")),
        "tensor1": inputs.layout(t1, p.get("t1_layout", "contiguous")),
        "tensor2": inputs.layout(t2, p.get("t2_layout", "contiguous")),
        "value": p.get("value", 1),
    }


def perturb(workload, rng):
    # Moves the broadcast output shape, then gives each operand the new size wherever it had the old one: sizes
    # of 1 stay, so the operands broadcast exactly as published. value and layouts stay.
    p = workload.params
    names = ["shape", "t1_shape", "t2_shape"]
    rank = max(len(p[k]) for k in names)
    padded = [[1] * (rank - len(p[k])) + p[k] for k in names]
    moved = sizes.shape_near(rng, [max(col) for col in zip(*padded)])
    result = dict(p)
    for k in names:
        result[k] = [1 if n == 1 else m for n, m in zip(p[k], moved[rank - len(p[k]):])]
    return result
