"""Per-tensor affine quantization to int8: one scale and one zero point for the whole tensor.

    y = fp32(input) / fp32(scale)                      an IEEE fp32 division, correctly rounded
    q = clamp(round_half_to_even(y) + zero_point, -128, 127)                          as int8

Mirrors `torch.quantize_per_tensor(input, scale, zero_point, torch.qint8).int_repr()`, with the rounding and
the division spelled out (PyTorch's CPU kernels multiply by a rounded reciprocal instead; the inputs below make
that difference invisible). `scale` is a positive Python float that is exactly an fp32 value, `zero_point` a
Python int in [-128, 127]; the zero point is added after rounding and before the clamp. The output is an int8
tensor of the input's shape (contiguous), compared exactly.

Rounding is defined everywhere, and the inputs keep every sensible implementation on the same side of it:
- Workloads with a power-of-two `scale` hold many exact ties (y = n + 1/2): there x / scale and x * (1 / scale)
  are both exact, so the tie is real and must go to the even neighbour (round half away from zero, or
  floor(y + 0.5), fails there).
- Workloads with any other `scale` hold no ties, and no element whose y lies within 1e-3 of a half-integer
  (such elements are set to 0 when the inputs are made): a division rounded differently by a few ulps (~1e-5
  here, |y| < 600) therefore never changes q, and the result is exact for every faithful kernel.
Values include saturation at both ends (|y| up to ~600, so the clamp and the order "round, add zero point,
clamp" matter), negative numbers, zeros and non-zero zero points; inputs come 1-D, 2-D and 3-D, contiguous,
column-major or strided, in fp32, fp16 and bf16 (every input value is exact in fp32, so the dtype only changes
which values occur). `check_huge` (scale 2^-16) also holds about 2 % of elements with |y| from 1e8 to 1e30 (inputs
held to the dtype's largest finite value: 65504 / 2^-16 is 4.3e9 in fp16), past what an int32 holds: converting
round(y) to int32 before the clamp is right there only because a GPU's conversion saturates (the CPU interpreter
converts as a GPU does; honest/convert_then_clamp), and a kernel that leaves the clamp to an int8 conversion fails.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "quantize_per_tensor_int8",
    "category": "Quantization",
    "level": 1,
    "signature": "(input, scale, zero_point)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["quantize_per_tensor", "quantize_per_tensor_dynamic", "fake_quantize_per_tensor_affine",
                  "quantize_per_channel", "round", "clamp", "clip", "clamp_min", "clamp_max", "hardtanh",
                  "int_repr"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "scale": 0.03125, "zero_point": 0}},
        {"name": "check_ties_tail", "role": "check",
         "params": {"shape": [4097], "scale": 0.0625, "zero_point": -3}},
        {"name": "check_2d_transposed", "role": "check",
         "params": {"shape": [129, 127], "scale": 0.0371, "zero_point": 17, "layout": "transposed"}},
        {"name": "check_3d_strided", "role": "check",
         "params": {"shape": [3, 65, 33], "scale": 0.5, "zero_point": -128, "layout": "strided"}},
        {"name": "check_small_scale", "role": "check",
         "params": {"shape": [127, 129], "scale": 0.0013, "zero_point": 127}},
        {"name": "check_huge", "role": "check",
         "params": {"shape": [1031], "scale": 1.52587890625e-05, "zero_point": 17, "huge": True}},
        {"name": "bench", "role": "bench", "params": {"shape": [16384, 32768], "scale": 0.0371, "zero_point": 5}},
    ],
}


def reference(input, scale, zero_point):
    x = input.to(torch.float32)
    # A 0-d divisor on the input's device, not the Python float: on CUDA, PyTorch turns division by a CPU scalar
    # into multiplication by its reciprocal, which is not the correctly rounded quotient the definition asks for.
    s = torch.full((), scale, dtype=torch.float32, device=x.device)
    q = torch.round(x / s) + zero_point
    return torch.clamp(q, -128, 127).to(torch.int8)


def _is_power_of_two(v):
    m, _ = torch.frexp(torch.tensor(v, dtype=torch.float64))
    return float(m) == 0.5


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    scale = float(torch.tensor(p["scale"], dtype=torch.float32))  # an exact fp32 value
    zp = p["zero_point"]
    # y = x / scale: a body around the zero point's complement (so both clamps are reached), 1 in 8 elements on
    # the half-integer grid (ties when the scale is a power of two), outliers well past saturation, some zeros.
    body = inputs.randn(shape, "float32", generator, scale=90.0, offset=-0.5 * zp)
    grid = inputs.randint(-400, 401, shape, generator).to(torch.float32) * 0.5
    y = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.125, grid, body)
    y = inputs.with_outliers(y, generator, fraction=0.01, magnitude=600.0)
    y = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.01, 0.0, y)
    if p.get("huge"):  # |y| from 1e8 to 1e30, either sign: past int32, still saturating at -128 or 127
        big = 10.0 ** inputs.uniform(shape, 8.0, 30.0, "float32", generator)
        pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
        y = torch.where(pick < 0.01, big, torch.where(pick < 0.02, -big, y))
    finite = torch.finfo(inputs.torch_dtype(dtype)).max
    x = (y * scale).clamp(-finite, finite).to(inputs.torch_dtype(dtype))
    if not _is_power_of_two(scale):
        # No element may sit within 1e-3 of a rounding boundary: the division is then unambiguous.
        y64 = x.double() / scale
        near = ((y64.abs() - y64.abs().floor()) - 0.5).abs() < 1e-3
        x = x.masked_fill(near, 0.0)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "scale": scale, "zero_point": zp}
