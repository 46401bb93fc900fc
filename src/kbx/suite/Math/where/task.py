"""Elementwise selection between two tensors by a boolean condition, with three-way broadcasting.

    where(condition, input, other)[i] = input[i] if condition[i] else other[i]

Mirrors `torch.where(condition, input, other)`. `condition` is a bool tensor; `condition`, `input` and `other`
broadcast together by PyTorch's rules (align trailing dims; size-1 or missing dims repeat), so the output has the
broadcast shape of all three. `input` and `other` are tensors of the task dtype, or `other` is a Python int
(`torch.result_type` keeps the tensor's dtype). Every output element is a copy of one input element, so the
contract is exact.

Float operands hold normal values, outliers, about 2% NaN and 2% +-inf, so a kernel that blends the branches
arithmetically (cond * a + (1 - cond) * b) turns an unselected infinity into NaN. int32 operands span the whole
int32 range. Workloads broadcast each of the three operands in turn (row, column, 0-d, outer, a 3-D condition
with 2-D and 1-D branches), use a scalar `other`, and make each operand non-contiguous (transposed, strided).
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "where",
    "category": "Math",
    "level": 1,
    "signature": "(condition, input, other)",
    "dtypes": ["float16", "int32"],
    "forbidden": ["where", "masked_fill", "masked_scatter", "masked_select", "index_put"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"cond_shape": [1000], "shape": [1000], "other_shape": [1000]}},
        {"name": "smoke_bcast", "role": "smoke",
         "params": {"cond_shape": [8, 1], "shape": [8, 100], "other_shape": [100]}},
        {"name": "check_same_2d", "role": "check",
         "params": {"cond_shape": [129, 127], "shape": [129, 127], "other_shape": [129, 127]}},
        {"name": "check_cond_row", "role": "check",
         "params": {"cond_shape": [129], "shape": [127, 129], "other_shape": [127, 129]}},
        {"name": "check_cond_col", "role": "check",
         "params": {"cond_shape": [129, 1], "shape": [129, 127], "other_shape": [129, 127]}},
        {"name": "check_branches_bcast", "role": "check",
         "params": {"cond_shape": [127, 129], "shape": [127, 1], "other_shape": [1, 129]}},
        {"name": "check_other_0d", "role": "check",
         "params": {"cond_shape": [4097], "shape": [4097], "other_shape": []}},
        {"name": "check_outer", "role": "check",
         "params": {"cond_shape": [65, 1], "shape": [1, 129], "other_shape": [65, 129]}},
        {"name": "check_3d", "role": "check",
         "params": {"cond_shape": [3, 33, 65], "shape": [33, 65], "other_shape": [65]}},
        {"name": "check_3d_mid", "role": "check",
         "params": {"cond_shape": [3, 33, 1], "shape": [3, 1, 65], "other_shape": [33, 65]}},
        {"name": "check_scalar", "role": "check",
         "params": {"cond_shape": [33, 129], "shape": [33, 129], "other_scalar": -2}},
        {"name": "check_noncontig", "role": "check",
         "params": {"cond_shape": [129, 127], "shape": [129, 127], "other_shape": [129, 127],
                    "cond_layout": "transposed", "layout": "strided", "other_layout": "transposed"}},
        {"name": "check_noncontig_bcast", "role": "check",
         "params": {"cond_shape": [33, 65], "shape": [3, 33, 65], "other_shape": [33, 65],
                    "cond_layout": "strided", "layout": "transposed", "other_layout": "strided"}},
        {"name": "bench_same", "role": "bench",
         "params": {"cond_shape": [16384, 32768], "shape": [16384, 32768], "other_shape": [16384, 32768]}},
        {"name": "bench_cond_col", "role": "bench",
         "params": {"cond_shape": [16384, 1], "shape": [16384, 32768], "other_shape": [32768]}},
    ],
}


def reference(condition, input, other):
    return torch.where(condition, input, other)


def _values(shape, dtype, generator):
    if dtype == "int32":
        return inputs.randint(-(2**31), 2**31, shape, generator).to(torch.int32)
    x = inputs.randn(shape, "float32", generator, scale=3.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-2, magnitude=2000.0)
    u = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    x = torch.where(u < 0.02, float("nan"), x)
    x = torch.where((u >= 0.02) & (u < 0.03), float("inf"), x)
    x = torch.where((u >= 0.03) & (u < 0.04), float("-inf"), x)
    return x.to(inputs.torch_dtype(dtype))


def make_inputs(workload, dtype, generator):
    p = workload.params
    cond = inputs.uniform(p["cond_shape"], 0.0, 1.0, "float32", generator) < 0.4
    cond = inputs.layout(cond, p.get("cond_layout", "contiguous"))
    x = inputs.layout(_values(p["shape"], dtype, generator), p.get("layout", "contiguous"))
    if "other_scalar" in p:
        other = p["other_scalar"]
    else:
        other = inputs.layout(_values(p["other_shape"], dtype, generator), p.get("other_layout", "contiguous"))
    return {"condition": cond, "input": x, "other": other}


def perturb(workload, rng):
    # Moves the broadcast output shape, then gives each operand the new size wherever it had the old one: sizes
    # of 1 stay, so the operands broadcast exactly as published. Scalars and layouts stay.
    p = workload.params
    names = [k for k in ("cond_shape", "shape", "other_shape") if k in p]
    rank = max(len(p[k]) for k in names)
    padded = [[1] * (rank - len(p[k])) + p[k] for k in names]
    moved = sizes.shape_near(rng, [max(col) for col in zip(*padded)])
    result = dict(p)
    for k in names:
        result[k] = [1 if n == 1 else m for n, m in zip(p[k], moved[rank - len(p[k]):])]
    return result
