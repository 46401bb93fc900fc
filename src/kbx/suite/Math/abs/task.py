"""The absolute value, applied elementwise.

    abs(x) = |x|;  abs(-0) = +0, abs(+-inf) = +inf, abs(NaN) = NaN

Mirrors `torch.abs(input)`. The output has the input's shape and dtype. abs only clears the sign bit, so the result
is exact in every dtype and the contract is `exact` (NaN matches NaN, and -0 compares equal to +0).

Inputs mix a normal body with an offset (both signs), huge and tiny magnitudes (a quarter of the dtype's largest
value and four times its smallest normal value, where squaring overflows or underflows), negative zeros, +-inf and
NaN, in contiguous and non-contiguous layouts.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "abs",
    "category": "Math",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["abs", "absolute", "fabs", "sgn", "sign", "copysign", "hypot", "norm", "vector_norm"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.abs(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    info = torch.finfo(inputs.torch_dtype(dtype))
    x = inputs.randn(shape, dtype, generator, scale=3.0, offset=-0.5)
    x = inputs.with_outliers(x, generator, fraction=2e-2, magnitude=info.max / 4)
    x = inputs.with_outliers(x, generator, fraction=2e-2, magnitude=info.tiny * 4)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = with_specials(x, pick, [-0.0, float("inf"), float("-inf"), float("nan")], share=4e-3)
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}


def with_specials(x, pick, values, share=1e-3):
    """x with the elements whose `pick` lies in the top `share * len(values)` replaced by `values`, one share each."""
    for i, value in enumerate(values):
        hit = (pick >= 1.0 - share * (i + 1)) & (pick < 1.0 - share * i)
        x = torch.where(hit, torch.full_like(x, value), x)
    return x
