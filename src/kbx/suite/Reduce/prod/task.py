"""Product of the elements along one dim.

    prod(input, dim, keepdim)[i..., k...] = product over j of input[i..., j, k...]

Mirrors `torch.prod(input, dim, keepdim=False)` with an int `dim` (negative counts from the end). The dim is
removed from the output shape, or kept with size 1 when `keepdim` is True. The output dtype is the input dtype.
fp32 only: PyTorch's CPU kernel multiplies fp16/bf16 inputs in their own dtype, rounding after every factor
(measured: bf16 products of 4097 factors off by up to 50%, fp16 by 4%), so a reference computed there cannot
judge a kernel that accumulates in fp32.

Values are magnitudes in [0.9, 1.1] with random signs (so products of thousands of factors stay in range and
their sign depends on every factor), and about one slice in three holds an exact zero. Workloads reduce the last,
first and a middle dim, a 1-D input (0-d output), a few long columns (where a good kernel splits the work),
keepdim, transposed and strided inputs, with lengths that straddle block sizes (127, 129, 4097), and slices of 9001
(`check_long_rows`), longer than any one block a kernel may cap a row at (8192). The default
tolerances hold: the solution uses at most 9% of them (a product's rounding error is relative, about
sqrt(n) * 6e-8 in fp32 for n factors).
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "prod",
    "category": "Reduce",
    "level": 1,
    "signature": "(input, dim, keepdim=False)",
    "dtypes": ["float32"],
    "forbidden": ["prod", "cumprod", "nanprod", "logsumexp", "log", "log2", "log10", "log1p", "exp", "exp2",
                  "det", "logdet", "slogdet", "sum", "nansum", "mul", "multiply"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 200], "dim": -1}},
        {"name": "smoke_first", "role": "smoke", "params": {"shape": [200, 16], "dim": 0, "keepdim": True}},
        {"name": "check_last_127", "role": "check", "params": {"shape": [129, 127], "dim": 1}},
        {"name": "check_last_4097", "role": "check", "params": {"shape": [17, 4097], "dim": -1, "keepdim": True}},
        {"name": "check_first_129", "role": "check", "params": {"shape": [129, 127], "dim": 0}},
        {"name": "check_long_columns", "role": "check", "params": {"shape": [4097, 3], "dim": 0}},
        {"name": "check_1d", "role": "check", "params": {"shape": [4097], "dim": 0}},
        {"name": "check_middle", "role": "check", "params": {"shape": [5, 129, 33], "dim": -2, "keepdim": True}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "dim": -1, "layout": "transposed"}},
        {"name": "check_strided", "role": "check", "params": {"shape": [7, 65, 33], "dim": 1, "layout": "strided"}},
        {"name": "check_long_rows", "role": "check", "params": {"shape": [3, 9001], "dim": -1}},
        {"name": "bench_last", "role": "bench", "params": {"shape": [65536, 16384], "dim": -1}},
        {"name": "bench_middle", "role": "bench", "params": {"shape": [256, 4096, 1024], "dim": 1}},
    ],
}


def reference(input, dim, keepdim=False):
    return torch.prod(input, dim, keepdim=keepdim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    dim = p["dim"] % len(shape)
    magnitude = inputs.uniform(shape, 0.9, 1.1, "float32", generator)
    sign = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.5, -1.0, 1.0)
    x = magnitude * sign
    # An exact zero at a random position in about a third of the slices.
    slice_shape = [1 if d == dim else s for d, s in enumerate(shape)]
    has_zero = inputs.uniform(slice_shape, 0.0, 1.0, "float32", generator) < 1 / 3
    where = inputs.randint(0, shape[dim], slice_shape, generator)
    position = torch.arange(shape[dim], device=x.device).reshape([-1 if d == dim else 1 for d in range(len(shape))])
    x = torch.where(has_zero & (position == where), 0.0, x)
    x = inputs.layout(x.to(inputs.torch_dtype(dtype)), p.get("layout", "contiguous"))
    return {"input": x, "dim": p["dim"], "keepdim": p.get("keepdim", False)}
