"""exp(x) - 1, accurate for small x, applied elementwise.

    expm1(x) = e^x - 1;  expm1(+inf) = +inf, expm1(-inf) = -1, expm1(NaN) = NaN

Mirrors `torch.expm1(input)`. The output has the input's shape and dtype; bf16 inputs are computed in fp32 and
rounded once, as PyTorch does. The point of expm1 is relative accuracy near 0, where expm1(x) ~ x + x^2/2: exp(x) is
within an ulp of 1 there, so exp(x) - 1 returns 0 for |x| < 6e-8 and keeps only a few correct digits for |x| around
1e-5.

Inputs: 40% small values of both signs spread log-uniformly over [1e-30, 1e-3]; a uniform spread over [-5, 5];
values straddling the overflow threshold (about 88.72 in fp32 and bf16: from 4 below to 1 above it, so some results
are huge-but-finite and some +inf); large negative values (-110 to -15, where the result is -1 or within an ulp of
it); and +-inf, NaN and -0. The contract keeps the default relative tolerances (fp32 1e-5, bf16 1.6e-2) but sets the
absolute tolerance to 1e-30, so small results are checked relative to their own size, which is the property the op
exists for. The reference solution (a degree-9 Taylor polynomial for |x| < 0.5, an exp with its argument split in
two parts beyond) measured at most 3% of that tolerance on the CPU interpreter; exp(x) - 1 fails by a factor of up
to 1e5 in fp32 and 60 in bf16 (it returns 0 for the tiniest inputs).
"""

import math

import torch

from kbx.tasks import inputs

TASK = {
    "name": "expm1",
    "category": "Math",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["expm1", "exp", "exp2", "pow", "float_power", "ldexp", "sinh", "tanh", "sigmoid", "elu", "celu",
                  "selu"],
    "contract": {"kind": "allclose", "tolerance": {"float32": [1e-30, 1e-5], "bfloat16": [1e-30, 1.6e-2]}},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.expm1(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dt = inputs.torch_dtype(dtype)
    high = math.log(torch.finfo(dt).max)  # above this expm1 overflows
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = inputs.uniform(shape, -5.0, 5.0, dtype, generator)
    x = mix(x, pick, [
        (0.0, 0.4, lambda: (random_signs(shape, generator)
                            * 10.0 ** inputs.uniform(shape, -30.0, -3.0, "float32", generator)).to(dt)),
        (0.65, 0.8, lambda: inputs.uniform(shape, high - 4.0, high + 1.0, dtype, generator)),
        (0.8, 0.9, lambda: inputs.uniform(shape, -110.0, -15.0, dtype, generator)),
    ])
    x = with_specials(x, pick, [float("inf"), float("-inf"), float("nan"), -0.0])
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}


def mix(x, pick, parts):
    """x with the elements whose `pick` lies in [low, high) replaced by make(), for each (low, high, make) in turn.

    Only one part's values are alive at a time, which keeps bench-sized inputs light on memory.
    """
    for low, high, make in parts:
        x = torch.where((pick >= low) & (pick < high), make(), x)
    return x


def random_signs(shape, generator):
    """+1.0 or -1.0 with equal odds (fp32)."""
    return torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.5, -1.0, 1.0)


def with_specials(x, pick, values, share=1e-3):
    """x with the elements whose `pick` lies in the top `share * len(values)` replaced by `values`, one share each."""
    for i, value in enumerate(values):
        hit = (pick >= 1.0 - share * (i + 1)) & (pick < 1.0 - share * i)
        x = torch.where(hit, torch.full_like(x, value), x)
    return x
