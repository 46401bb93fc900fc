"""Lp normalization along one dimension: every slice divided by its p-norm, clamped below by eps.

    norm = (sum_k |x_k|^p)^(1/p)     (over `dim`; p = inf: max_k |x_k|)
    y    = x / max(norm, eps)

Mirrors `torch.nn.functional.normalize(input, p=2.0, dim=1, eps=1e-12)` (without `out=`). The default dim is 1,
not the last one: for an (N, C, H, W) tensor every pixel's channel vector is normalized. The output has the
input's shape and dtype; bf16 inputs are computed in fp32 (PyTorch rounds the bf16 norm before dividing, one
extra rounding that the bf16 tolerance covers).

Inputs have per-slice scales spread over two decades, ~10% slices that are all zero (always the first; norm 0:
the eps clamp gives exactly 0, a division by the bare norm gives 0/0 = NaN) and ~10% tiny slices (always the
second) whose norm is ~0.3 eps (y = x / eps, not x / norm, nor x / (norm + eps)). Workloads cover p = 2, 1, 3,
1.5 (a kernel that forms |x|^p by multiplying int(p) factors passed every integer p) and inf (written "inf" in the
params), dim = 1 of NCHW tensors, the last, first and middle dims, slices longer
than one block (4097, 20000), a large eps, and transposed or strided (non-contiguous) inputs.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs

TASK = {
    "name": "normalize",
    "category": "Normalization",
    "level": 1,
    "signature": "(input, p=2.0, dim=1, eps=1e-12)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["normalize", "norm", "vector_norm", "linalg_norm", "matrix_norm", "renorm", "rms_norm",
                  "layer_norm", "sum", "nansum", "mean", "amax", "max", "pow", "square", "cdist", "dist",
                  "clamp", "clamp_min", "clip", "maximum", "fmax"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [4, 8, 5], "p": 2.0, "dim": 1}},
        {"name": "smoke_last", "role": "smoke", "params": {"shape": [8, 100], "p": 2.0, "dim": -1}},
        {"name": "check_nchw_dim1", "role": "check", "params": {"shape": [2, 65, 9, 7], "p": 2.0, "dim": 1}},
        {"name": "check_rows_4097", "role": "check", "params": {"shape": [9, 4097], "p": 2.0, "dim": -1}},
        {"name": "check_p1_middle", "role": "check", "params": {"shape": [3, 129, 33], "p": 1.0, "dim": 1}},
        {"name": "check_p3_rows", "role": "check", "params": {"shape": [33, 127], "p": 3.0, "dim": -1}},
        {"name": "check_p_fractional", "role": "check", "params": {"shape": [17, 129], "p": 1.5, "dim": -1}},
        {"name": "check_pinf_strided", "role": "check",
         "params": {"shape": [5, 67, 31], "p": "inf", "dim": -2, "layout": "strided"}},
        {"name": "check_dim0", "role": "check", "params": {"shape": [129, 65], "p": 2.0, "dim": 0}},
        {"name": "check_long_rows", "role": "check", "params": {"shape": [3, 20000], "p": 2.0, "dim": 1}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [127, 129], "p": 2.0, "dim": -1, "layout": "transposed"}},
        {"name": "check_large_eps", "role": "check",
         "params": {"shape": [40, 96], "p": 2.0, "dim": 1, "eps": 0.5}},
        {"name": "bench_nchw", "role": "bench", "params": {"shape": [128, 512, 64, 64], "p": 2.0, "dim": 1}},
        {"name": "bench_rows", "role": "bench", "params": {"shape": [65536, 8192], "p": 2.0, "dim": -1}},
    ],
}


def reference(input, p=2.0, dim=1, eps=1e-12):
    return F.normalize(input, p, dim, eps)


def make_inputs(workload, dtype, generator):
    params = workload.params
    shape = params["shape"]
    dim = params["dim"] % len(shape)
    p, eps = float(params["p"]), params.get("eps", 1e-12)
    slice_shape = [1 if d == dim else s for d, s in enumerate(shape)]  # one entry per normalized slice
    n = shape[dim]
    # Per-slice scale in [0.1, 10]; ~10% of the slices are zero, ~10% tiny: norm ~0.3 eps, below the clamp.
    scale = torch.pow(10.0, inputs.uniform(slice_shape, -1.0, 1.0, "float32", generator))
    pick = inputs.uniform(slice_shape, 0.0, 1.0, "float32", generator)
    pick.view(-1)[:2] = torch.tensor([0.05, 0.15], device=pick.device)[: pick.numel()]  # zero, then tiny
    tiny = 0.3 * eps / (3.0 if p == float("inf") else n ** (1.0 / p))
    scale = torch.where(pick < 0.1, 0.0, torch.where(pick < 0.2, tiny, scale))
    x = inputs.randn(shape, "float32", generator, offset=0.3) * scale
    x = x.to(inputs.torch_dtype(dtype))
    return {"input": inputs.layout(x, params.get("layout", "contiguous")), "p": p, "dim": params["dim"],
            "eps": eps}
