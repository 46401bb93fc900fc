"""L2 normalization along one dimension followed by a learned per-feature gain (QK-norm, cosine heads).

    norm = sqrt(sum(input^2 along dim))                          (fp32)
    l2_normalize_scale(input, scale, dim, eps) = input / max(norm, eps) * scale      (scale indexed along dim)

The unfused PyTorch composition is `F.normalize(input, p=2.0, dim=dim, eps=eps) * scale` with `scale` (a 1-D
tensor of input.shape[dim] values) viewed along `dim`. The reference computes in fp32 and rounds once, so its
result does not depend on how a PyTorch version rounds inside F.normalize. A slice whose entries are all zero
has norm 0 < eps and comes out as zeros (0 / eps), never NaN. `input` and `scale` share one dtype (float32 or
bfloat16); the output has the input's shape and dtype.

Fusion: a fused kernel reads the input for the norm and writes the scaled output once; neither the norm
broadcast nor the normalised tensor is written. Minimum traffic: 2 * numel * itemsize bytes.

Inputs: normal values with a per-slice scale of 1/64 to 64 (so a kernel that forgets to normalise is far off),
about 5% of the slices entirely zero, and a gain of sqrt(R) * (1 +- 0.5), which keeps the outputs O(1).
Workloads normalise the last dim (lengths 100, 127, 129, 4097 and 20000, longer than one tile; given as -1
and as a positive index), dim 1 of a 3-D input (a middle dim, so the slice is strided in memory), dim 0, and a
transposed input.

`check_3d_last`'s input holds the first 11 rows of longer sequences (`inputs.seq_slice`), so its leading dims do not
merge: a kernel that flattens them into rows by stepping the row stride, with no reshape, reads the wrong rows after
the first sequence.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs

TASK = {
    "name": "l2_normalize_scale",
    "category": "Fusion",
    "level": 2,
    "signature": "(input, scale, dim=-1, eps=1e-12)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["normalize", "norm", "vector_norm", "linalg_vector_norm", "rms_norm", "layer_norm", "sum",
                  "nansum", "mean", "rsqrt", "sqrt", "pow", "square", "hypot", "clamp", "clamp_min", "clip",
                  "maximum", "max", "mul", "multiply", "div", "divide", "true_divide", "cosine_similarity"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 100], "dim": -1}},
        {"name": "check_127", "role": "check", "params": {"shape": [65, 127], "dim": -1}},
        {"name": "check_3d_last", "role": "check", "params": {"shape": [3, 11, 129], "dim": 2, "layout": "seq_slice"}},
        {"name": "check_4097", "role": "check", "params": {"shape": [9, 4097], "dim": -1}},
        {"name": "check_long_rows", "role": "check", "params": {"shape": [3, 20000], "dim": 1}},
        {"name": "check_middle", "role": "check", "params": {"shape": [4, 130, 33], "dim": 1}},
        {"name": "check_dim0", "role": "check", "params": {"shape": [129, 65], "dim": 0}},
        {"name": "check_large_eps", "role": "check", "params": {"shape": [33, 127], "dim": -1, "eps": 1.0}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "dim": -1, "layout": "transposed"}},
        {"name": "bench", "role": "bench", "params": {"shape": [131072, 4096], "dim": -1}},
        {"name": "bench_middle", "role": "bench", "params": {"shape": [64, 1024, 4096], "dim": 1}},
    ],
}


def reference(input, scale, dim=-1, eps=1e-12):
    view = [1] * input.dim()
    view[dim] = -1
    return (F.normalize(input.float(), p=2.0, dim=dim, eps=eps) * scale.float().view(view)).to(input.dtype)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    d = p["dim"] % len(shape)
    slice_shape = [1 if i == d else s for i, s in enumerate(shape)]
    mag = torch.exp2(inputs.uniform(slice_shape, -6.0, 6.0, "float32", generator))
    mag = mag * (inputs.uniform(slice_shape, 0.0, 1.0, "float32", generator) >= 0.05)  # ~5% zero slices
    x = (inputs.randn(shape, "float32", generator) * mag).to(inputs.torch_dtype(dtype))
    # A gain of sqrt(R) * (1 +- 0.5) keeps the outputs O(1) (unit-norm slices have entries ~ 1/sqrt(R)), so the
    # bf16 tolerance is small against them.
    scale = inputs.randn([shape[d]], dtype, generator, scale=0.5 * shape[d] ** 0.5, offset=shape[d] ** 0.5)
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "scale": scale, "dim": p["dim"],
            "eps": p.get("eps", 1e-12)}
