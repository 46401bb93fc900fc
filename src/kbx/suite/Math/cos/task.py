"""The cosine, applied elementwise (argument in radians).

    cos(x);  cos(+-inf) = NaN, cos(NaN) = NaN

Mirrors `torch.cos(input)`. The output has the input's shape and dtype; fp16 inputs are computed in fp32 and rounded
once, as PyTorch does.

Inputs reach |x| = 400 (about 64 periods), so a kernel must reduce the argument accurately: subtracting k * 2 pi
with a single fp32 constant loses up to ~2.4e-5 there (the rounding of k * 2 pi and the constant's own error),
beyond the fp32 tolerance, while a two- or three-part (Cody-Waite) reduction keeps the error near one ulp. A fast
kernel that reduces this way and then calls the hardware cosine on [-pi, pi] (absolute error about 5e-7) reaches
about 1e-6 absolute error, well inside the default fp32 tolerance (1e-5 absolute plus 1e-5 relative); the reference
solution measured about 1e-7 (1% of the tolerance) on the CPU interpreter. Inputs mix a uniform spread over [-400,
400], a normal body, values within 1e-3 of multiples of pi/2 (zeros and extremes of the cosine), tiny values where
cos(x) ~ 1, and +-inf and NaN, in contiguous and non-contiguous layouts.
"""

import math

import torch

from kbx.tasks import inputs

TASK = {
    "name": "cos",
    "category": "Math",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["cos", "sin", "cosh", "tan", "sinc", "sinpi", "cospi", "polar", "stft", "fft", "rfft"],
    "contract": {
        "kind": "allclose",
        "against_reference": (
            "the task checks argument reduction: accurate reduction leaves a forward error near 1e-6 "
            "absolute on outputs near the function's zeros, the single-constant reduction "
            "(wrong/naive_range_reduction) about 2.4e-5; neither scales with the output's own size, and the "
            "naive reduction is backward stable, so no perturbation of the inputs tells them apart: the "
            "absolute tolerance judges against the reference"
        ),
        "tolerance": {"float16": [1e-5, 1e-3]},  # the reduction's 1e-6, not half an ulp of 1
    },
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.cos(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dt = inputs.torch_dtype(dtype)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = inputs.uniform(shape, -400.0, 400.0, dtype, generator)
    x = mix(x, pick, [
        (0.0, 0.3, lambda: inputs.randn(shape, dtype, generator, scale=3.0)),
        (0.3, 0.45, lambda: (inputs.randint(-254, 255, shape, generator).float() * (math.pi / 2)
                             + inputs.uniform(shape, -1e-3, 1e-3, "float32", generator)).to(dt)),
        (0.45, 0.5, lambda: inputs.uniform(shape, -1e-3, 1e-3, dtype, generator)),
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
