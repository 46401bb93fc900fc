"""Four-quadrant arctangent of input / other, elementwise with broadcasting.

    atan2(input, other) = the angle of the point (x, y) = (other, input), in [-pi, pi]

Mirrors `torch.atan2(input, other)`: `input` is the y coordinate, `other` the x coordinate, as in C's atan2(y, x).
Unlike atan(input / other) it uses both signs to pick the quadrant: atan2(1, -1) = 3pi/4, atan2(-1, -1) = -3pi/4.
IEEE special cases apply: atan2(+-0, x) = +-0 for x > 0 and +-pi for x < 0 or x = -0; atan2(y, +-0) = +-pi/2;
atan2(+-inf, +-inf) = +-pi/4 or +-3pi/4. The output has the broadcast shape and dtype; fp16 is computed in fp32
and rounded once.

Inputs have both signs and magnitudes spread over several orders (a log-normal magnitude times a random sign),
with signed zeros and infinities, so every quadrant, both axes and the ratio extremes (|y| << |x| and |y| >> |x|)
occur. Workloads cover equal shapes, row, column and outer broadcasts, a 0-d operand, a 3-D input, and transposed
and strided operands. Default tolerances: the polynomial solution's worst error is 2.4e-7 in fp32 (under 1% of
the tolerance) and one ulp in fp16 (under half of it).
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "atan2",
    "category": "Math",
    "level": 1,
    "signature": "(input, other)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["atan2", "arctan2", "atan", "arctan", "angle", "atanh", "arctanh", "asin", "arcsin", "acos",
                  "arccos", "polar", "complex", "view_as_complex"],
    "contract": {"kind": "allclose"},
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
    return torch.atan2(input, other)


def _values(shape, dtype, generator):
    magnitude = torch.exp(inputs.randn(shape, "float32", generator, scale=2.0))
    sign = torch.where(inputs.uniform(shape, 0.0, 1.0, "float32", generator) < 0.5, -1.0, 1.0)
    x = sign * magnitude
    u = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = torch.where(u < 0.05, 0.0 * sign, x)  # signed zeros
    x = torch.where((u >= 0.05) & (u < 0.07), sign * float("inf"), x)
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
