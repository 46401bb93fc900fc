"""Per-channel affine dequantization of int8 values: one scale and one zero point per slice along `axis`.

    out[..., c, ...] = fp32(input[..., c, ...] - zero_points[c]) * fp32(scales[c])    rounded once to scales.dtype

where c is the index along `axis` (negative values count from the end). Mirrors the per-channel
`torch.dequantize` (as in `torch.ao.quantization.fx._decomposed.dequantize_per_channel`): `input` is int8,
`scales` has one entry per channel in the output dtype (fp32, fp16 or bf16), `zero_points` is int64 in
[-128, 127]. The output has the input's shape and `scales`' dtype.

Exact contract on a float output, because the result is exactly defined: q - zero_point is an integer of at most
9 bits, so in fp32 the difference is exact and the product with the scale is rounded once (fp32 scales) or is
exact (an fp16 scale has 11 significant bits, bf16 8, so the product fits fp32's 24) and is then rounded once to
fp16 or bf16. Any kernel that subtracts the zero point first and multiplies in fp32 (or in the output dtype)
returns exactly these bits. Folding the zero point into a bias (q * s - zp * s) is not this operation: it rounds
twice and loses everything where q is close to the zero point.

Inputs cover all 256 int8 values, zero points across the whole range (each channel its own), scales spread over
2^-12 .. 2^4 and signed zero points; `axis` is 0 (weights, one scale per output row), 1 of a 4-D NCHW tensor,
the last dim, and negative; inputs come contiguous, transposed or strided; sizes are odd.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "dequantize_per_channel_int8",
    "category": "Quantization",
    "level": 1,
    "signature": "(input, scales, zero_points, axis)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["dequantize", "dequantize_per_channel", "fake_quantize_per_channel_affine", "int_repr",
                  "mul", "multiply", "rmul", "imul", "sub", "subtract", "rsub", "isub", "addcmul", "lerp"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 100], "axis": 0}},
        {"name": "check_rows", "role": "check", "params": {"shape": [129, 127], "axis": 0}},
        {"name": "check_last_transposed", "role": "check",
         "params": {"shape": [127, 129], "axis": -1, "layout": "transposed"}},
        {"name": "check_nchw", "role": "check", "params": {"shape": [3, 33, 9, 13], "axis": 1}},
        {"name": "check_neg_strided", "role": "check",
         "params": {"shape": [5, 65, 31], "axis": -2, "layout": "strided"}},
        {"name": "check_1d", "role": "check", "params": {"shape": [4097], "axis": 0}},
        {"name": "bench_rows", "role": "bench", "params": {"shape": [32768, 16384], "axis": 0}},
        {"name": "bench_last", "role": "bench", "params": {"shape": [32768, 16384], "axis": 1}},
        {"name": "bench_over_2_31", "role": "bench", "min_gpu_gib": 139, "timed": False,
         "params": {"shape": [65537, 32768], "axis": 0}},
    ],
}


def reference(input, scales, zero_points, axis):
    axis = axis % input.dim()
    view = [1] * input.dim()
    view[axis] = -1
    q = torch.sub(input.to(torch.float32), zero_points.to(torch.float32).view(view))
    return torch.mul(q, scales.to(torch.float32).view(view)).to(scales.dtype)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    channels = shape[p["axis"]]
    q = inputs.randint(-128, 128, shape, generator).to(torch.int8)
    zero_points = inputs.randint(-128, 128, [channels], generator)
    zero_points[0] = 0  # one symmetric channel
    scales = torch.exp2(inputs.uniform([channels], -12.0, 4.0, "float32", generator))
    scales = scales.to(inputs.torch_dtype(dtype))
    return {
        "input": inputs.layout(q, p.get("layout", "contiguous")),
        "scales": scales,
        "zero_points": zero_points,
        "axis": p["axis"],
    }
