"""Elementwise log of the sum of exponentials of two tensors, computed without overflow.

    logaddexp(input, other) = log(exp(input) + exp(other))
                            = max(input, other) + log1p(exp(-|input - other|))     (the stable form)

Mirrors `torch.logaddexp(input, other)`, the pairwise form of logsumexp used to add probabilities stored as logs.
The naive formula overflows once an argument passes about 88.7 (exp exceeds fp32) and returns -inf once both are
below about -103 (both exponentials underflow); the stable form is finite whenever the result is. Infinities
follow the definition: logaddexp(-inf, -inf) = -inf, logaddexp(inf, x) = inf. The output has the broadcast shape
and the inputs' dtype; fp16 is computed in fp32 and rounded once.

Values mix wide normals (standard deviation 60: many exponentials overflow or underflow) with narrow ones
(standard deviation 3: close pairs, where the log1p term matters), with 15% -inf (log of zero probability; both
operands are -inf at about 2% of positions) and 2% +inf. Workloads cover equal shapes,
row, column and outer broadcasts, a 0-d operand, a 3-D input, and transposed and strided operands. Default
tolerances.

The contract adds an absolute allowance of 16 u_acc to the truth rule (`absolute`): written from its definition
without log1p, max + log(1 + exp(-|a - b|)) loses about u_acc where the two are far apart and the larger is near 0
(docs/evaluation.md, "Textbook formulas").
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "logaddexp",
    "category": "Math",
    "level": 1,
    "signature": "(input, other)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["logaddexp", "logaddexp2", "logsumexp", "softplus", "log1p", "log", "exp", "expm1", "log_softmax",
                  "softmax", "sigmoid", "logsigmoid"],
    "contract": {"kind": "allclose",
                 "absolute": {"units": 16,
                              "reason": ("max + log(1 + exp(-|a - b|)) loses about u_acc where 1 + exp(-|a - b|) "
                                         "rounds to 1 (far-apart arguments, the larger near 0), and PyTorch calls "
                                         "log1p")}},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "other_shape": [1000]}},
        {"name": "smoke_row", "role": "smoke", "params": {"shape": [8, 100], "other_shape": [100]}},
        {"name": "check_same_2d", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 127]}},
        {"name": "check_row", "role": "check", "params": {"shape": [127, 129], "other_shape": [1, 129]}},
        {"name": "check_col", "role": "check", "params": {"shape": [129, 127], "other_shape": [129, 1]}},
        {"name": "check_outer", "role": "check", "params": {"shape": [65, 1], "other_shape": [1, 129]}},
        {"name": "check_0d", "role": "check", "params": {"shape": [4097], "other_shape": []}},
        {"name": "check_3d_mid", "role": "check", "params": {"shape": [3, 33, 65], "other_shape": [33, 1]}},
        {"name": "check_noncontig", "role": "check",
         "params": {"shape": [129, 127], "other_shape": [129, 127], "layout": "transposed",
                    "other_layout": "strided"}},
        {"name": "check_noncontig_bcast", "role": "check",
         "params": {"shape": [3, 33, 65], "other_shape": [33, 65], "layout": "strided",
                    "other_layout": "transposed"}},
        {"name": "bench_same", "role": "bench", "params": {"shape": [16384, 32768], "other_shape": [16384, 32768]}},
        {"name": "bench_row", "role": "bench", "params": {"shape": [16384, 32768], "other_shape": [32768]}},
    ],
}


def reference(input, other):
    return torch.logaddexp(input, other)


def _values(shape, dtype, generator):
    wide = inputs.randn(shape, "float32", generator, scale=60.0, offset=-5.0)
    narrow = inputs.randn(shape, "float32", generator, scale=3.0)
    x = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.4, narrow, wide)
    u = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = torch.where(u < 0.15, float("-inf"), x)
    x = torch.where((u >= 0.15) & (u < 0.17), float("inf"), x)
    return x.to(inputs.torch_dtype(dtype))


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.layout(_values(p["shape"], dtype, generator), p.get("layout", "contiguous"))
    other = inputs.layout(_values(p["other_shape"], dtype, generator), p.get("other_layout", "contiguous"))
    return {"input": x, "other": other}


def perturb(workload, rng):
    # Moves the broadcast output shape, then gives each operand the new size wherever it had the old one: sizes
    # of 1 stay, so the operands broadcast exactly as published. Layouts stay.
    p = workload.params
    shape, other = p["shape"], p["other_shape"]
    rank = max(len(shape), len(other))
    out = [max(a, b) for a, b in zip([1] * (rank - len(shape)) + shape, [1] * (rank - len(other)) + other)]
    moved = sizes.shape_near(rng, out)

    def fit(operand):
        return [1 if n == 1 else m for n, m in zip(operand, moved[rank - len(operand):])]

    return {**p, "shape": fit(shape), "other_shape": fit(other)}
