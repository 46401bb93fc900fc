"""The arctangent, applied elementwise (result in radians, in [-pi/2, pi/2]).

    atan(x);  atan(+-inf) = +-pi/2, atan(NaN) = NaN

Mirrors `torch.atan(input)`. The output has the input's shape and dtype; bf16 inputs are computed in fp32 and
rounded once, as PyTorch does. Triton has no arctangent in `triton.language`, so a kernel must build one: the usual
route is a range reduction (atan(x) = pi/2 - atan(1/x) for |x| > 1, and a shift by pi/4 around 1) and a polynomial
on the reduced interval.

Inputs mix a normal body, a uniform spread over [-5, 5], values within the band [0.3, 1.2] in magnitude (where the
reductions switch), tiny magnitudes (1e-30 to 1, where atan(x) ~ x), huge ones (1 to 1e30, where atan(x) ~ pi/2 -
1/x), and +-inf, NaN and -0, in contiguous and non-contiguous layouts. The default tolerances apply; the reference
solution measured under 1% of the fp32 tolerance on the CPU interpreter.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "atan",
    "category": "Math",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["atan", "arctan", "atan2", "arctan2", "atanh", "arctanh", "angle"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.atan(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = inputs.randn(shape, "float32", generator, scale=2.0)
    x = mix(x, pick, [
        (0.3, 0.5, lambda: inputs.uniform(shape, -5.0, 5.0, "float32", generator)),
        (0.5, 0.65, lambda: random_signs(shape, generator) * inputs.uniform(shape, 0.3, 1.2, "float32", generator)),
        (0.65, 0.8, lambda: random_signs(shape, generator) * 10.0 ** inputs.uniform(shape, -30.0, 0.0, "float32",
                                                                                      generator)),
        (0.8, 1.0, lambda: random_signs(shape, generator) * 10.0 ** inputs.uniform(shape, 0.0, 30.0, "float32",
                                                                                     generator)),
    ])
    x = with_specials(x.to(inputs.torch_dtype(dtype)), pick, [float("inf"), float("-inf"), float("nan"), -0.0])
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
