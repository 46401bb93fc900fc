"""SwiGLU, the gated activation of LLaMA-style feed-forward blocks: silu(gate) * up, elementwise.

    swiglu(gate, up) = silu(gate) * up = gate * sigmoid(gate) * up = gate / (1 + exp(-gate)) * up

The unfused PyTorch composition is `torch.nn.functional.silu(gate) * up`. `gate` and `up` have the same shape
and dtype (the outputs of the gate and up projections); the output has that shape and dtype. In the reference
silu's result is rounded to the dtype before the multiply; a fused kernel that rounds once is as close as the
tolerance needs.

Fusion: a fused kernel reads gate and up once and writes the output once; silu(gate) is never written.
Minimum traffic: 3 * numel * itemsize bytes, against 5 for silu and the multiply as two kernels.

Inputs: `gate` is wide (std 3) with outliers of +-30, so silu's curved part near 0, its negative dip and both
saturated tails (silu -> 0 far below, silu -> gate far above) all occur; `up` is normal with an offset.
Workloads cover a 1-D tail (4097), 2-D and 3-D shapes with odd sizes (127/129), gate and up transposed, and
the common packed layout where gate and up are the two halves of one fused projection (B, S, 2I): strided
views whose rows are 2I apart.

In two workloads up's layout differs from gate's (a contiguous up with a transposed gate in
`check_transposed`, a transposed up with a row-major gate in `check_3d`): a kernel that reads one operand
through the other's strides, or walks each in its own memory order, passed while the two shared one layout.

`check_3d`'s gate holds the first 33 rows of longer sequences (`inputs.seq_slice`), so its leading dims do not
merge: a kernel that flattens them into rows by stepping the row stride, with no reshape, passed every workload
before.
"""

import torch
import torch.nn.functional as F

from kbx.tasks import inputs

TASK = {
    "name": "swiglu",
    "category": "Fusion",
    "level": 2,
    "signature": "(gate, up)",
    "dtypes": ["bfloat16", "float32"],
    "forbidden": ["silu", "sigmoid", "expit", "logsigmoid", "exp", "exp2", "expm1", "tanh", "softplus", "glu",
                  "swiglu", "mul", "multiply", "addcmul", "prod"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 100]}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097]}},
        {"name": "check_2d", "role": "check", "params": {"shape": [129, 127]}},
        {"name": "check_3d", "role": "check",
         "params": {"shape": [3, 33, 65], "layout": "seq_slice", "up_layout": "transposed"}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [127, 129], "layout": "transposed", "up_layout": "contiguous"}},
        {"name": "check_packed", "role": "check", "params": {"shape": [5, 17, 129], "layout": "packed"}},
        {"name": "bench", "role": "bench", "params": {"shape": [32768, 14336]}},
        {"name": "bench_packed", "role": "bench", "params": {"shape": [4, 4096, 14336], "layout": "packed"}},
    ],
}


def reference(gate, up):
    return F.silu(gate) * up


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, n = p["shape"], p["shape"][-1]
    # gate and up side by side in one (..., 2I) tensor, drawn in fp32 and cast once.
    gate = inputs.randn(shape, "float32", generator, scale=3.0)
    gate = inputs.with_outliers(gate, generator, fraction=1e-2, magnitude=30.0)
    up = inputs.randn(shape, "float32", generator, offset=0.5)
    both = torch.cat([gate, up], dim=-1).to(inputs.torch_dtype(dtype))
    layout = p.get("layout", "contiguous")
    if layout == "packed":
        # One fused gate/up projection: gate and up are its two halves, views whose rows are 2I apart.
        return {"gate": both[..., :n], "up": both[..., n:]}
    gate, up = both[..., :n].contiguous(), both[..., n:].contiguous()
    # up laid out unlike gate in two workloads (up_layout)
    return {"gate": inputs.layout(gate, layout), "up": inputs.layout(up, p.get("up_layout", layout))}
