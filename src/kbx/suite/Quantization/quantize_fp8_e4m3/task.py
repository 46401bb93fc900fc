"""Scaled, saturating quantization to fp8 e4m3 (torch.float8_e4m3fn), as done before fp8 matmuls.

    y   = fp32(input) / fp32(scale)                 an IEEE fp32 division, correctly rounded
    out = float8_e4m3fn(clamp(y, -448, 448))        round to nearest, ties to even (subnormals included)

`scale` is a positive Python float that is exactly an fp32 value; the output has the input's shape and dtype
torch.float8_e4m3fn (4 exponent bits, bias 7, 3 mantissa bits, largest finite 448, subnormals k * 2^-9, no
infinities). Mirrors `(input / scale).clamp(-448, 448).to(torch.float8_e4m3fn)`, the per-tensor scaling used
with torch._scaled_mm. The clamp is part of the definition: PyTorch's own cast of an out-of-range value has
changed across versions (NaN in older releases, saturation in newer ones), so the reference saturates
explicitly and every version agrees.

Exact contract: the fp8 bits are defined. Workloads with a power-of-two scale hold exact ties, midway between
two fp8 neighbours, among normals and subnormals (x / scale is exact there for any way of dividing), which must
go to the even neighbour; workloads with another scale hold no element within 1e-3 of an fp8 ulp from a
rounding boundary (such elements are set to 0 when the inputs are made), so a division that differs by an ulp
or two changes nothing. Magnitudes of y are log-uniform over 2^-12 .. 2^10: underflow to zero, subnormals,
normals and saturation at both signs. Inputs come 1-D, 2-D and 3-D, contiguous, column-major or strided.

Note for kernel writers: the Triton CPU interpreter does not convert to fp8 correctly (it rounds ties up and
does not saturate), so a kernel that must also run there builds the e4m3 bits with integer arithmetic; on the
GPU `.to(tl.float8e4nv)` after the clamp (a round-to-nearest-even conversion) should give the same bits.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "quantize_fp8_e4m3",
    "category": "Quantization",
    "level": 1,
    "signature": "(input, scale)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["clamp", "clip", "clamp_min", "clamp_max", "hardtanh", "minimum", "maximum", "where",
                  "scaled_mm", "quantize_per_tensor"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "scale": 0.25}},
        {"name": "check_ties_tail", "role": "check", "params": {"shape": [4097], "scale": 2.0}},
        {"name": "check_2d_transposed", "role": "check",
         "params": {"shape": [129, 127], "scale": 0.0371, "layout": "transposed"}},
        {"name": "check_3d_strided", "role": "check",
         "params": {"shape": [3, 65, 33], "scale": 1.0, "layout": "strided"}},
        {"name": "check_large_scale", "role": "check", "params": {"shape": [127, 129], "scale": 13.7}},
        {"name": "bench", "role": "bench", "params": {"shape": [16384, 32768], "scale": 0.0371}},
    ],
}


def reference(input, scale):
    x = input.to(torch.float32)
    # A 0-d divisor on the input's device, not the Python float: on CUDA, PyTorch turns division by a CPU scalar
    # into multiplication by its reciprocal, which is not the correctly rounded quotient the definition asks for.
    s = torch.full((), scale, dtype=torch.float32, device=x.device)
    return torch.clamp(x / s, -448.0, 448.0).to(torch.float8_e4m3fn)


def _fp8_ulp(a):
    """The e4m3 spacing at magnitude a (float64): 2^(floor(log2 a) - 3) for normals, 2^-9 below 2^-6."""
    e = torch.floor(torch.log2(a.clamp_min(2.0**-6)))
    return torch.exp2(e - 3.0)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    scale = float(torch.tensor(p["scale"], dtype=torch.float32))  # an exact fp32 value
    m, _ = torch.frexp(torch.tensor(scale, dtype=torch.float64))
    power_of_two = float(m) == 0.5
    sign = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.5, -1.0, 1.0)
    y = sign * torch.exp2(inputs.uniform(shape, -12.0, 10.0, "float32", generator))
    # Exact midpoints between fp8 neighbours: (1 + odd / 16) * 2^e among normals, odd * 2^-10 among subnormals.
    odd = (2 * inputs.randint(0, 8, shape, generator) + 1).to(torch.float32)
    e = inputs.randint(-6, 9, shape, generator).to(torch.float32)
    normal_tie = (1.0 + odd / 16.0) * torch.exp2(e)
    tie = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.8, normal_tie, odd * 2.0**-10)
    tie_fraction = 0.25 if power_of_two else 0.0  # exact ties only where every division keeps them exact
    y = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < tie_fraction, sign * tie, y)
    x = (y * scale).to(inputs.torch_dtype(dtype))
    if not power_of_two:
        # No element within 1e-3 of an fp8 ulp from a rounding boundary.
        a = (x.double() / scale).abs()
        ulps = a / _fp8_ulp(a)
        near = ((ulps - ulps.floor()) - 0.5).abs() < 1e-3
        x = x.masked_fill(near & (a < 448.0), 0.0)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "scale": scale}
