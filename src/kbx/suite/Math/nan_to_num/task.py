"""Replace NaN, +inf and -inf by finite numbers, elementwise.

    nan_to_num(x, nan, posinf, neginf) = nan if x is NaN, posinf if x = +inf, neginf if x = -inf, else x
    posinf = None means the dtype's largest finite value, neginf = None its most negative finite value

Mirrors `torch.nan_to_num(input, nan=0.0, posinf=None, neginf=None)`. The output has the input's shape and dtype and
every element is either the input element or one of the three replacements rounded to the dtype, so the contract is
`exact`. The defaults depend on the dtype: 3.4028e38 in fp32, 65504 in fp16, 3.3895e38 in bf16 (fp32's maximum
rounds to +inf in bf16 and fp16, so a kernel that hard-codes it fails there).

Workloads: all defaults; all three replacements given; only posinf given (neginf stays the default); nan and neginf
given (posinf stays the default). Inputs are a normal body with finite outliers at +-(dtype max) / 2 and about 5%
each of NaN, +inf and -inf, plus negative zeros, in contiguous and non-contiguous layouts.

No float64 second opinion (`"second_opinion": False`): the defaults for posinf/neginf are the input dtype's
largest values, so the reference run on float64 copies is a different operation (a wrong candidate that uses the
float32 maximum for float16 input would match it).
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "nan_to_num",
    "category": "Math",
    "level": 1,
    "signature": "(input, nan=0.0, posinf=None, neginf=None)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["nan_to_num", "isnan", "isinf", "isposinf", "isneginf", "isfinite", "where", "masked_fill",
                  "masked_scatter", "clamp", "clip", "nansum"],
    "contract": {"kind": "exact", "second_opinion": False},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000]}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097]}},
        {"name": "check_all_given_t", "role": "check",
         "params": {"shape": [129, 127], "nan": 1.5, "posinf": 100.0, "neginf": -100.0, "layout": "transposed"}},
        {"name": "check_posinf_only_strided", "role": "check",
         "params": {"shape": [3, 33, 65], "posinf": 7.0, "layout": "strided"}},
        {"name": "check_nan_neginf", "role": "check", "params": {"shape": [129, 127], "nan": -2.0, "neginf": -7.0}},
        {"name": "bench", "role": "bench", "params": {"shape": [24576, 32768]}},
    ],
}


def reference(input, nan=0.0, posinf=None, neginf=None):
    return torch.nan_to_num(input, nan=nan, posinf=posinf, neginf=neginf)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    info = torch.finfo(inputs.torch_dtype(dtype))
    x = inputs.randn(shape, dtype, generator, scale=3.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=2e-2, magnitude=info.max / 2)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = with_specials(x, pick, [float("nan"), float("inf"), float("-inf"), -0.0], share=5e-2)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "nan": p.get("nan", 0.0),
            "posinf": p.get("posinf"), "neginf": p.get("neginf")}


def with_specials(x, pick, values, share=1e-3):
    """x with the elements whose `pick` lies in the top `share * len(values)` replaced by `values`, one share each."""
    for i, value in enumerate(values):
        hit = (pick >= 1.0 - share * (i + 1)) & (pick < 1.0 - share * i)
        x = torch.where(hit, torch.full_like(x, value), x)
    return x
