"""The sign function, applied elementwise.

    sign(x) = (0 < x) - (x < 0):  1 for x > 0, -1 for x < 0, 0 for x = +-0, and 0 for NaN

Mirrors `torch.sign(input)`, including its NaN rule: PyTorch evaluates the two comparisons above, both false for
NaN, so sign(NaN) = 0 (not NaN) on CPU and GPU alike. The output has the input's shape and dtype and is exact, so
the contract is `exact`.

Inputs mix a normal body with an offset (both signs), a tenth exact zeros, tiny magnitudes (four times the smallest
normal value, whose sign must survive), huge ones (a quarter of the dtype's largest value), negative zeros, +-inf
and NaN, in contiguous and non-contiguous layouts.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "sign",
    "category": "Math",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["sign", "sgn", "signbit", "copysign", "heaviside"],
    "contract": {"kind": "exact"},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.sign(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    info = torch.finfo(inputs.torch_dtype(dtype))
    x = inputs.randn(shape, dtype, generator, scale=3.0, offset=-0.5)
    x = inputs.with_outliers(x, generator, fraction=2e-2, magnitude=info.max / 4)
    x = inputs.with_outliers(x, generator, fraction=2e-2, magnitude=info.tiny * 4)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = torch.where(pick < 0.1, torch.zeros_like(x), x)
    x = with_specials(x, pick, [-0.0, float("inf"), float("-inf"), float("nan")], share=4e-3)
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}


def with_specials(x, pick, values, share=1e-3):
    """x with the elements whose `pick` lies in the top `share * len(values)` replaced by `values`, one share each."""
    for i, value in enumerate(values):
        hit = (pick >= 1.0 - share * (i + 1)) & (pick < 1.0 - share * i)
        x = torch.where(hit, torch.full_like(x, value), x)
    return x
