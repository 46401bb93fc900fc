"""Linear-layer bias, residual add and layer norm fused, the epilogue of a post-matmul block. Returns two tensors.

    h    = (input + bias) + residual                        (bias broadcast along the last dim; each add rounded
                                                             to the dtype, as the two eager adds are)
    mean = E[h],  var = E[(h - mean)^2]                     (over the last dim; biased variance; fp32)
    out  = (h - mean) / sqrt(var + eps) * weight + ln_bias  (one rounding to the dtype)
    add_bias_residual_layer_norm(input, bias, residual, weight, ln_bias, eps) = (out, h)

`input` is a matmul output computed without its bias; the unfused PyTorch composition is
`h = input + bias + residual` followed by `torch.nn.functional.layer_norm(h, (D,), weight, ln_bias, eps)`. The
statistics are taken from h as rounded to the dtype, exactly the tensor returned as the new residual. All
tensors share one dtype (float32 or bfloat16); `bias`, `weight` and `ln_bias` have the last dim's size; both
outputs have the input's shape and dtype and are returned in the order (out, h).

Fusion: a fused kernel reads input and residual once (the three D-vectors stay in cache) and writes out and h
once; neither input + bias nor h is read back. Minimum traffic: 4 * numel * itemsize bytes, against at least
8 for two adds and the norm as three kernels.

Inputs: `input` is normal; `bias` is drawn per column (-1 +- 2, so a bias added along the wrong axis or after
the norm shows); `residual` carries a per-row mean in [-5, 5], a per-row spread of 1/2 to 4 and outliers of
+-40. Workloads cover rows of 100, 127, 129, 1000, 4097 and 20485 (longer than one on-chip tile), a 3-D input,
a transposed input, a strided residual and a large eps (0.1) on rows of small variance.

Tolerance: the defaults. The solution rounds after each add as the reference does, so h matches exactly;
measured on the CPU interpreter (seeds 0-2), the normalised output uses at most 0.06 of the float32 tolerance
and 0.24 of the bfloat16 one.

`check_129_3d`'s input and residual hold the first 11 rows of longer sequences (`inputs.seq_slice`), so their
leading dims do not merge: a kernel that flattens them into rows by stepping the row stride, with no reshape, reads
the wrong rows after the first sequence.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs
from kbx.tasks.truth import stored

TASK = {
    "name": "add_bias_residual_layer_norm",
    "category": "Fusion",
    "level": 2,
    "signature": "(input, bias, residual, weight, ln_bias, eps=1e-05)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["layer_norm", "native_layer_norm", "rms_norm", "group_norm", "batch_norm", "instance_norm",
                  "normalize", "norm", "vector_norm", "mean", "nanmean", "sum", "nansum", "var", "std", "var_mean",
                  "std_mean", "rsqrt", "sqrt", "pow", "square", "add", "addcmul", "addcdiv", "sub", "subtract",
                  "mul", "multiply"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 100]}},
        {"name": "check_127", "role": "check", "params": {"shape": [65, 127]}},
        {"name": "check_129_3d", "role": "check",
         "params": {"shape": [3, 11, 129], "input_layout": "seq_slice", "residual_layout": "seq_slice"}},
        {"name": "check_4097", "role": "check", "params": {"shape": [9, 4097]}},
        {"name": "check_long_rows", "role": "check", "params": {"shape": [3, 20485]}},
        {"name": "check_large_eps", "role": "check", "params": {"shape": [40, 1000], "scale": 0.05, "eps": 0.1}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "input_layout": "transposed"}},
        {"name": "check_strided_residual", "role": "check",
         "params": {"shape": [4, 7, 65], "residual_layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [32768, 8192]}},
        {"name": "bench_12288", "role": "bench", "params": {"shape": [16384, 12288]}},
    ],
}


def reference(input, bias, residual, weight, ln_bias, eps=1e-05):
    h = stored(torch.add(stored(torch.add(input, bias)), residual))  # each add rounded, for the float64 truth too
    return F.layer_norm(h, (h.shape[-1],), weight, ln_bias, eps), h


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    scale = p.get("scale", 1.0)
    row_shape = shape[:-1] + [1]
    # Per-row mean in [-5, 5] * scale and spread in [scale/2, 4*scale], carried by the residual stream.
    row_mean = inputs.uniform(row_shape, -5.0 * scale, 5.0 * scale, "float32", generator)
    row_std = scale * torch.exp2(inputs.uniform(row_shape, -1.0, 2.0, "float32", generator))
    x = inputs.randn(shape, "float32", generator, scale=scale).to(inputs.torch_dtype(dtype))
    r = inputs.randn(shape, "float32", generator) * row_std + row_mean
    r = inputs.with_outliers(r, generator, fraction=2e-3, magnitude=40.0 * scale).to(inputs.torch_dtype(dtype))
    w = inputs.randn(shape[-1:], dtype, generator, scale=0.5, offset=1.0)
    b = inputs.randn(shape[-1:], dtype, generator, scale=0.5)
    lin_b = inputs.randn(shape[-1:], dtype, generator, scale=2.0 * scale, offset=-1.0 * scale)
    return {
        "input": inputs.layout(x, p.get("input_layout", "contiguous")),
        "bias": lin_b,
        "residual": inputs.layout(r, p.get("residual_layout", "contiguous")),
        "weight": w,
        "ln_bias": b,
        "eps": p.get("eps", 1e-05),
    }
