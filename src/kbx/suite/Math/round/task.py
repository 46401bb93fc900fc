"""Round to the nearest integer, or to a number of decimal places, with ties to even; elementwise.

    round(x, 0) = the integer nearest x, ties to the even one (2.5 -> 2, 3.5 -> 4, -0.5 -> -0)
    round(x, d) = rint(x * 10^d) / 10^d for d > 0,  rint(x / 10^-d) * 10^-d for d < 0  (fp32 operations)

Mirrors `torch.round(input, decimals=0)`. The output has the input's shape and dtype; +-inf and NaN pass through.
With d != 0 PyTorch's result is defined by those fp32 operations (x * 10^d rounds before rint, the division is
IEEE), so it is reproducible exactly and the contract is `exact`, but for d != 0 within 4 ulps: the division written
with Triton's `/` is faithfully rounded, not correctly (div.full.f32). On an H200 (2026-11-28) rint(x * 100) / 100
so written was an ulp off on 1,324 of 6,435 elements, and rint(x / 10) * 10 up to 2 ulps off on 104 of 16,383
(values of 1e28, whose quotient is no integer) and, on another seed, 3 ulps on one element of 4.9e7 (past 2^22 the
quotient's error moves rint by one: an output 10 off). So for d < 0 every input is an integer (ties 10 k + 5
included) and the large values stop where the quotient's ulp is 1/32 (x / 10^-d below 2^19): the quotient's
fraction is then a multiple of 10^d, at least 0.1 from a tie unless it is one, and two ulps of it cannot carry it
across. No rounding mistake is
that small: a wrong tie moves an output by 10^-d on values below 10^4, and d = 0 stays exact, where an ulp is a
real mistake (the magic-number rint is an ulp off between 2^23 and 2^24).

Only fp32 is used: for fp16 and bf16 with d != 0, PyTorch's CUDA kernel rounds x * 10^d to the half type before rint
while its CPU kernel does not, so no single answer exists across devices. Inputs: exact ties k + 0.5 for integers k
of both parities, a uniform spread over [-1000, 1000], a normal body, values from 2^23 to 1e30 (already integers;
for d < 0, 10^-d times 2^15 to 2^19, and every input an integer),
values in (-1, 1) including +-0.5, +-inf, NaN and -0; with d = 2 decimal-looking values k / 100 + 0.005, with d = -1
tens-ties 10 k + 5; in contiguous and non-contiguous layouts.
"""

import math

import torch

from kbx.tasks import inputs

TASK = {
    "name": "round",
    "category": "Math",
    "level": 1,
    "signature": "(input, decimals=0)",
    "dtypes": ["float32"],
    "forbidden": ["round", "rint", "nearbyint", "floor", "ceil", "trunc", "fix", "frac", "fmod", "remainder",
                  "floor_divide", "special_round"],
    "contract": {"kind": "exact", "ulps": {
        "units": 4, "workloads": ["check_decimals_2_strided", "check_decimals_neg1"],
        "reason": "a division by a power of ten may be faithful rather than correctly rounded: Triton compiles fp32 "
                  "`/` to div.full.f32 (within 2 ulps), so rint(x * 100) / 100 and rint(x / 10) * 10 written "
                  "plainly land up to 3 ulps off PyTorch's IEEE result on some elements (where x / 10 is past "
                  "2^22, the quotient's error can move rint by one); `tl.div_rn` is exact"}},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000]}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097]}},
        {"name": "check_2d_t", "role": "check", "params": {"shape": [129, 127], "layout": "transposed"}},
        {"name": "check_decimals_2_strided", "role": "check",
         "params": {"shape": [3, 33, 65], "decimals": 2, "layout": "strided"}},
        {"name": "check_decimals_neg1", "role": "check", "params": {"shape": [129, 127], "decimals": -1}},
        {"name": "bench", "role": "bench", "params": {"shape": [16384, 32768]}},
    ],
}


def reference(input, decimals=0):
    return torch.round(input, decimals=decimals)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, decimals = p["shape"], p.get("decimals", 0)
    scale = 10.0 ** -decimals  # the spacing the rounding snaps to
    # Large values: 2^23 to 2^99 (already integers), but for d < 0 quotients x / 10^-d of 2^15 to 2^19 only (see above).
    low, high = (23.0, 99.0) if decimals >= 0 else (15.0 + math.log2(scale), 19.0 + math.log2(scale))
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = inputs.uniform(shape, -1000.0, 1000.0, "float32", generator) * scale
    x = mix(x, pick, [
        (0.0, 0.3, lambda: (inputs.randint(-1000, 1001, shape, generator).float() + 0.5) * scale),  # ties
        (0.5, 0.7, lambda: inputs.randn(shape, "float32", generator, scale=3.0) * scale),
        (0.7, 0.75, lambda: random_signs(shape, generator) * 2.0 ** inputs.uniform(shape, low, high, "float32",
                                                                                     generator)),
        (0.75, 0.85, lambda: inputs.uniform(shape, -1.0, 1.0, "float32", generator) * scale),
    ])
    if decimals < 0:
        x = torch.round(x)  # integers: no near-ties an approximate division could move rint across (see above)
    x = with_specials(x.to(inputs.torch_dtype(dtype)), pick,
                      [0.5, -0.5, 1.5, -2.5, float("inf"), float("-inf"), float("nan"), -0.0], share=2e-3)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "decimals": decimals}


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
