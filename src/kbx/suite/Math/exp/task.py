"""The exponential, applied elementwise.

    exp(x) = e^x

Mirrors `torch.exp(input)`. The output has the input's shape and dtype; bf16 and fp16 inputs are computed in fp32
and rounded once, as PyTorch does. exp overflows to +inf above ln(max) of the dtype (about 88.72 in fp32 and bf16,
11.09 in fp16), passes through the subnormals and rounds to 0 below ln(smallest subnormal) (about -103.3 in fp32,
-92 in bf16, -16.6 in fp16); exp(+inf) = +inf, exp(-inf) = 0 and exp(NaN) = NaN.

Inputs mix a normal body, values straddling the dtype's overflow threshold (from 4 below to 1 above it, so some
results are huge-but-finite and some are +inf), values straddling the underflow threshold, a uniform spread over the
whole finite range, and a few exact +-inf and NaN, in contiguous and non-contiguous layouts. Near overflow the
relative error of exp is the absolute error of its argument: a kernel that evaluates e^x as 2^(x log2 e) in fp32
loses about half an ulp of x log2 e ~ 128, i.e. up to ~6e-6 relative, which the default fp32 tolerance (1e-5) still
accepts; a truncated log2 e constant does not.
"""

import math

import torch

from kbx.tasks import inputs

TASK = {
    "name": "exp",
    "category": "Math",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["exp", "exp2", "expm1", "pow", "float_power", "ldexp", "sigmoid", "softmax", "logsumexp"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.exp(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    info = torch.finfo(inputs.torch_dtype(dtype))
    high = math.log(info.max)  # above this exp overflows
    low = math.log(info.tiny * info.eps)  # below this exp rounds to 0 (tiny * eps is the smallest subnormal)
    x = inputs.randn(shape, dtype, generator, scale=3.0, offset=0.5)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = mix(x, pick, [
        (0.0, 0.15, lambda: inputs.uniform(shape, high - 4.0, high + 1.0, dtype, generator)),
        (0.15, 0.3, lambda: inputs.uniform(shape, low - 4.0, low + 10.0, dtype, generator)),
        (0.3, 0.45, lambda: inputs.uniform(shape, -high, high, dtype, generator)),
    ])
    x = with_specials(x, pick, [float("inf"), float("-inf"), float("nan")])
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}


def mix(x, pick, parts):
    """x with the elements whose `pick` lies in [low, high) replaced by make(), for each (low, high, make) in turn.

    Only one part's values are alive at a time, which keeps bench-sized inputs light on memory.
    """
    for low, high, make in parts:
        x = torch.where((pick >= low) & (pick < high), make(), x)
    return x


def with_specials(x, pick, values, share=1e-3):
    """x with the elements whose `pick` lies in the top `share * len(values)` replaced by `values`, one share each."""
    for i, value in enumerate(values):
        hit = (pick >= 1.0 - share * (i + 1)) & (pick < 1.0 - share * i)
        x = torch.where(hit, torch.full_like(x, value), x)
    return x
