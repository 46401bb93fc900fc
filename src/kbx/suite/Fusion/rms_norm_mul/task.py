"""RMS normalization gated by SiLU, as in Mamba-2's output norm and gated MLP variants.

    rms_norm_mul(input, weight, gate, eps) = input / sqrt(mean(input^2 over the last dim) + eps) * weight
                                             * silu(gate),     silu(g) = g * sigmoid(g)

The unfused PyTorch composition is `F.rms_norm(input, (D,), weight, eps) * F.silu(gate)`; the reference spells
the norm out and evaluates everything in fp32 with one final rounding, so its result does not depend on how a
PyTorch version rounds inside rms_norm. The gate is applied *after* normalising (Mamba-2's
norm_before_gate=True ordering); normalising input * silu(gate) is a different function. `input` and `gate`
have the same shape, `weight` has the last dim's size, all share one dtype (bfloat16 or float16); the output
has the input's shape and dtype.

Fusion: a fused kernel reads input, gate and weight once and writes once; neither the normalised input nor
silu(gate) is written. Minimum traffic: 3 * numel * itemsize bytes, against at least 7 for the norm, silu
and the multiply as separate kernels.

Inputs: every row of `input` has its own scale (1/4 to 4, times 0.05 in the large-eps workload, where eps = 0.1
dominates the mean square); `gate` is wide (std 3) with outliers of +-30, so silu's negative dip and both
saturated tails occur. Workloads cover rows of 100, 127, 129, 1000, 4097 and 20485 (longer than one on-chip
tile), a 3-D input, a transposed input and a strided gate.

`check_129_3d`'s input and gate hold the first 11 rows of longer sequences (`inputs.seq_slice`), so their leading
dims do not merge: a kernel that flattens them into rows by stepping the row stride, with no reshape, reads the
wrong rows after the first sequence.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "rms_norm_mul",
    "category": "Fusion",
    "level": 2,
    "signature": "(input, weight, gate, eps=1e-06)",
    "dtypes": ["bfloat16", "float16"],
    "forbidden": ["rms_norm", "layer_norm", "group_norm", "normalize", "norm", "vector_norm", "mean", "nanmean",
                  "sum", "nansum", "var", "std", "rsqrt", "sqrt", "pow", "square", "silu", "sigmoid", "expit",
                  "logsigmoid", "exp", "tanh", "glu", "mul", "multiply", "addcmul"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 100]}},
        {"name": "check_127", "role": "check", "params": {"shape": [65, 127]}},
        {"name": "check_129_3d", "role": "check",
         "params": {"shape": [3, 11, 129], "input_layout": "seq_slice", "gate_layout": "seq_slice"}},
        {"name": "check_4097", "role": "check", "params": {"shape": [9, 4097]}},
        {"name": "check_long_rows", "role": "check", "params": {"shape": [3, 20485]}},
        {"name": "check_large_eps", "role": "check", "params": {"shape": [40, 1000], "scale": 0.05, "eps": 0.1}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "input_layout": "transposed"}},
        {"name": "check_strided_gate", "role": "check", "params": {"shape": [4, 7, 65], "gate_layout": "strided"}},
        {"name": "bench", "role": "bench", "params": {"shape": [65536, 8192]}},
        {"name": "bench_3d", "role": "bench", "params": {"shape": [16, 4096, 4096]}},
        {"name": "bench_over_2_31", "role": "bench", "min_gpu_gib": 139, "timed": False,
         "params": {"shape": [65537, 32768]}},
    ],
}


def reference(input, weight, gate, eps=1e-06):
    x = input.float()
    g = gate.float()
    rstd = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (x * rstd * weight.float() * (g * torch.sigmoid(g))).to(input.dtype)


def truth_rows(input, weight, gate, eps=1e-06):
    """Each row (all but the last dimension) of the output depends on the same row of `input` and `gate` alone: the
    float64 truth may run by blocks of rows. Whole, its float64 temporaries outgrow an H200 on the 2^31 bench."""
    return ("input", "gate") if input.dim() > 1 else None


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    row_scale = p.get("scale", 1.0) * torch.exp2(inputs.uniform(shape[:-1] + [1], -2.0, 2.0, "float32", generator))
    x = (inputs.randn(shape, "float32", generator, offset=0.2) * row_scale).to(inputs.torch_dtype(dtype))
    g = inputs.randn(shape, "float32", generator, scale=3.0)
    g = inputs.with_outliers(g, generator, fraction=1e-2, magnitude=30.0).to(inputs.torch_dtype(dtype))
    w = inputs.randn(shape[-1:], dtype, generator, scale=0.5, offset=1.0)
    return {
        "input": inputs.layout(x, p.get("input_layout", "contiguous")),
        "weight": w,
        "gate": inputs.layout(g, p.get("gate_layout", "contiguous")),
        "eps": p.get("eps", 1e-06),
    }
