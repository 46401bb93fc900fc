"""log(1 + x), accurate for small x, applied elementwise.

    log1p(x) = ln(1 + x);  log1p(-1) = -inf, log1p(x < -1) = NaN, log1p(+inf) = +inf, log1p(NaN) = NaN

Mirrors `torch.log1p(input)`. The output has the input's shape and dtype; bf16 inputs are computed in fp32 and
rounded once, as PyTorch does. The point of log1p is relative accuracy near 0, where log1p(x) ~ x - x^2/2: forming 1
+ x first rounds away every digit of x below 2^-24, so log(1 + x) returns 0 for |x| < 6e-8 and keeps only a few
correct digits for |x| around 1e-5.

Inputs: 40% small values of both signs spread log-uniformly over [1e-30, 1e-3]; a uniform spread over [-0.99, 3];
large values up to 1e30; values just above -1 (where the result is very negative); and -1, -2, +inf, NaN and -0. The
contract keeps the default relative tolerances (fp32 1e-5, bf16 1.6e-2) but sets the absolute tolerance to 1e-30, so
small results are checked relative to their own size, which is the property the op exists for. The reference
solution (a series in s = x / (2 + x) for |x| < 0.3, log(1 + x) beyond) measured at most 3% of that tolerance on the
CPU interpreter, and its error does not depend on the hardware log near 1; log(1 + x) fails by a factor of up to 1e5
in fp32 and 60 in bf16 (it returns 0 for the tiniest inputs).
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "log1p",
    "category": "Math",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["log1p", "log", "log2", "log10", "xlogy", "xlog1py", "logaddexp", "logaddexp2", "atanh",
                  "softplus"],
    "contract": {"kind": "allclose", "tolerance": {"float32": [1e-30, 1e-5], "bfloat16": [1e-30, 1.6e-2]}},
    "perturb": "shape",
    "workloads": "elementwise",
}


def reference(input):
    return torch.log1p(input)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dt = inputs.torch_dtype(dtype)
    pick = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = inputs.uniform(shape, -0.99, 3.0, dtype, generator)
    x = mix(x, pick, [
        (0.0, 0.4, lambda: (random_signs(shape, generator)
                            * 10.0 ** inputs.uniform(shape, -30.0, -3.0, "float32", generator)).to(dt)),
        (0.65, 0.8, lambda: (10.0 ** inputs.uniform(shape, 0.0, 30.0, "float32", generator)).to(dt)),
        (0.8, 0.9, lambda: (-1.0 + 10.0 ** inputs.uniform(shape, -7.0, -1.0, "float32", generator)).to(dt)),
    ])
    x = with_specials(x, pick, [-1.0, -2.0, float("inf"), float("nan"), -0.0])
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
