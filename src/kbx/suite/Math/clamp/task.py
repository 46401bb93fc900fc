"""Clamp every element into [min, max], with scalar bounds of which either may be left out.

    clamp(x, min, max) = min(max(x, min), max);  NaN stays NaN; a bound of None is not applied;
                         if min > max, every element becomes max

Mirrors `torch.clamp(input, min=None, max=None)` with Python-number bounds (at least one given). The output has the
input's shape and dtype. Every result is either the input element or a bound rounded to the dtype, so the contract
is `exact` (NaN matches NaN).

Workloads: both bounds; only `min` (set to 0.0, the value a `min or -inf` shortcut silently drops); only `max` (0.3,
not representable in any of the dtypes); `min` above `max` (PyTorch applies `max` last, so the output is all `max`).
Inputs are a normal body with outliers at +-100, a share of elements exactly equal to the rounded bounds (ties),
negative zeros, +-inf and NaN, in contiguous and non-contiguous layouts.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "clamp",
    "category": "Math",
    "level": 1,
    "signature": "(input, min=None, max=None)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["clamp", "clip", "clamp_min", "clamp_max", "hardtanh", "relu", "relu6", "threshold", "maximum",
                  "minimum", "fmax", "fmin", "max", "min", "where", "masked_fill", "masked_scatter"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "min": -0.5, "max": 0.5}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097], "min": -1.3, "max": 2.7}},
        {"name": "check_only_min_t", "role": "check",
         "params": {"shape": [129, 127], "min": 0.0, "layout": "transposed"}},
        {"name": "check_only_max_strided", "role": "check",
         "params": {"shape": [3, 33, 65], "max": 0.3, "layout": "strided"}},
        {"name": "check_min_above_max", "role": "check", "params": {"shape": [129, 127], "min": 1.0, "max": -1.0}},
        {"name": "bench", "role": "bench", "params": {"shape": [24576, 32768], "min": -1.0, "max": 1.0}},
    ],
}


def reference(input, min=None, max=None):
    return torch.clamp(input, min=min, max=max)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    bounds = [b for b in (p.get("min"), p.get("max")) if b is not None]
    x = inputs.randn(shape, dtype, generator, scale=2.0, offset=0.25)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=100.0)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    for i, bound in enumerate(bounds):  # exact ties with each (rounded) bound
        x = torch.where((pick >= 0.05 * i) & (pick < 0.05 * (i + 1)), torch.full_like(x, bound), x)
    x = with_specials(x, pick, [-0.0, float("inf"), float("-inf"), float("nan")], share=4e-3)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "min": p.get("min"), "max": p.get("max")}


def with_specials(x, pick, values, share=1e-3):
    """x with the elements whose `pick` lies in the top `share * len(values)` replaced by `values`, one share each."""
    for i, value in enumerate(values):
        hit = (pick >= 1.0 - share * (i + 1)) & (pick < 1.0 - share * i)
        x = torch.where(hit, torch.full_like(x, value), x)
    return x
