"""Cumulative (inclusive prefix) product along one dimension.

    cumprod(input, dim)[..., i, ...] = product over j <= i of input[..., j, ...]   (i, j index dimension `dim`)

Mirrors `torch.cumprod(input, dim)` with an int `dim` (negative values count from the end). The output has the
input's shape and dtype. PyTorch accumulates fp16 in fp32 and rounds every output once.

Workloads scan the last dim, the first dim and a middle dim, rows longer than any one block (4097 and 16411
elements, so a blocked scan must carry its total from block to block), short rows, a 1-D input, negative `dim`, and
transposed and strided inputs. Values are close to 1 (1 + 0.02 * normal), so products of thousands of them stay
within a few orders of magnitude, with about 0.5% negated (the sign of the product flips) and 0.01% exact zeros (the
product is 0 from there on, in about a third of the 4097-long rows): taking logs, exp(cumsum(log x)), fails on the
negative ones.

Tolerance: a scan is a reduction of up to `length` elements (the workload's scan length), and a blocked parallel
scan multiplies in a different order than PyTorch's; each product carries about sqrt(length) fp32 roundings, so
the contract widens atol with sqrt(length) (reduction_length); rtol stays at the default. The solution's worst
error uses about 1% (fp32) and 8% (fp16, one rounding step) of the widened tolerance; unwidened, its fp32 error on
the 4097-long rows would already use about half of the default tolerance, with a different scan order on the
GPU. The wrong candidates miss by orders of magnitude or produce NaN.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "cumprod",
    "category": "Math",
    "level": 1,
    "signature": "(input, dim)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["cumprod", "cumulative_prod", "prod", "cumsum", "logcumsumexp", "log", "exp", "log2", "exp2"],
    "contract": {"kind": "allclose", "reduction_length": "length"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 200], "dim": -1, "length": 200}},
        {"name": "smoke_dim0", "role": "smoke", "params": {"shape": [200, 16], "dim": 0, "length": 200}},
        {"name": "check_last_127", "role": "check", "params": {"shape": [65, 127], "dim": 1, "length": 127}},
        {"name": "check_last_4097", "role": "check", "params": {"shape": [9, 4097], "dim": -1, "length": 4097}},
        {"name": "check_long_row", "role": "check", "params": {"shape": [2, 16411], "dim": -1, "length": 16411}},
        {"name": "check_1d", "role": "check", "params": {"shape": [4097], "dim": 0, "length": 4097}},
        {"name": "check_first_129", "role": "check", "params": {"shape": [129, 127], "dim": 0, "length": 129}},
        {"name": "check_first_long", "role": "check", "params": {"shape": [4097, 9], "dim": -2, "length": 4097}},
        {"name": "check_middle", "role": "check", "params": {"shape": [5, 129, 33], "dim": 1, "length": 129}},
        {"name": "check_short_rows", "role": "check", "params": {"shape": [3, 129, 5], "dim": -1, "length": 5}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "dim": -1, "layout": "transposed", "length": 127}},
        {"name": "check_strided_middle", "role": "check",
         "params": {"shape": [3, 257, 33], "dim": 1, "layout": "strided", "length": 257}},
        {"name": "bench_last", "role": "bench", "params": {"shape": [16384, 32768], "dim": -1, "length": 32768}},
        {"name": "bench_first", "role": "bench", "params": {"shape": [32768, 16384], "dim": 0, "length": 32768}},
    ],
}


def reference(input, dim):
    return torch.cumprod(input, dim)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    assert p["length"] == shape[p["dim"]], "length must be the scanned dim's size"
    x = inputs.randn(shape, "float32", generator, scale=0.02, offset=1.0)
    u = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = torch.where(u < 0.005, -x, x)
    x = torch.where((u >= 0.005) & (u < 0.0051), 0.0, x).to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "dim": p["dim"]}


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); dim and layout stay, length follows.
    p = workload.params
    shape = sizes.shape_near(rng, p["shape"])
    return {**p, "shape": shape, "length": shape[p["dim"]]}
