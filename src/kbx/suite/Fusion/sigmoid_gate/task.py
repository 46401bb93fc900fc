"""Sigmoid gating: input * sigmoid(gate), elementwise, as in gated attention outputs and GLU-style layers.

    sigmoid_gate(input, gate) = input * sigmoid(gate) = input / (1 + exp(-gate))

The unfused PyTorch composition is `input * torch.sigmoid(gate)`. `input` and `gate` have the same shape and
dtype (float16 or bfloat16); the output has that shape and dtype. The reference rounds sigmoid(gate) to the
dtype before the multiply; a fused kernel that computes in fp32 and rounds once is within one ulp of it, which
the default tolerances allow (one float16 ulp is at most 2^-10 of |out| < 1e-3 + 1e-3 |out|). Measured (CPU
interpreter, seeds 0-2): the solution uses up to 0.83 of the float16 tolerance (that one-ulp case) and 0.39
of the bfloat16 one.

Fusion: a fused kernel reads input and gate once and writes once; sigmoid(gate) is never written. Minimum
traffic: 3 * numel * itemsize bytes, against 5 for sigmoid and the multiply as two kernels.

Inputs: `gate` is wide (std 3) with outliers of +-30, so the sigmoid's middle and both saturated ends occur;
`input` is normal with an offset. Workloads cover a 1-D tail (4097), 2-D and 3-D shapes with odd sizes
(127/129), both operands transposed, and the packed layout where input and gate are the two halves of one
(..., 2D) projection: strided views whose rows are 2D apart.

In two workloads gate's layout differs from input's (a contiguous gate with a transposed input in
`check_transposed`, a transposed gate with a row-major input in `check_3d`): a kernel that reads one operand
through the other's strides, or walks each in its own memory order, passed while the two shared one layout.

`check_3d`'s input holds the first 33 rows of longer sequences (`inputs.seq_slice`), so its leading dims do not
merge: a kernel that flattens them into rows by stepping the row stride, with no reshape, reads the wrong rows after
the first sequence.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "sigmoid_gate",
    "category": "Fusion",
    "level": 2,
    "signature": "(input, gate)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["sigmoid", "expit", "logsigmoid", "silu", "exp", "exp2", "expm1", "tanh", "softplus", "glu",
                  "mul", "multiply", "addcmul", "div", "divide", "true_divide", "reciprocal", "prod"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [8, 100]}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097]}},
        {"name": "check_2d", "role": "check", "params": {"shape": [129, 127]}},
        {"name": "check_3d", "role": "check",
         "params": {"shape": [3, 33, 65], "layout": "seq_slice", "gate_layout": "transposed"}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [127, 129], "layout": "transposed", "gate_layout": "contiguous"}},
        {"name": "check_packed", "role": "check", "params": {"shape": [5, 17, 129], "layout": "packed"}},
        {"name": "bench", "role": "bench", "params": {"shape": [32768, 16384]}},
        {"name": "bench_packed", "role": "bench", "params": {"shape": [8, 4096, 8192], "layout": "packed"}},
    ],
}


def reference(input, gate):
    return input * torch.sigmoid(gate)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, n = p["shape"], p["shape"][-1]
    # input and gate side by side in one (..., 2D) tensor, drawn in fp32 and cast once.
    x = inputs.randn(shape, "float32", generator, scale=2.0, offset=0.5)
    gate = inputs.randn(shape, "float32", generator, scale=3.0)
    gate = inputs.with_outliers(gate, generator, fraction=1e-2, magnitude=30.0)
    both = torch.cat([x, gate], dim=-1).to(inputs.torch_dtype(dtype))
    layout = p.get("layout", "contiguous")
    if layout == "packed":
        return {"input": both[..., :n], "gate": both[..., n:]}
    x, gate = both[..., :n].contiguous(), both[..., n:].contiguous()
    # gate laid out unlike input in two workloads (gate_layout)
    return {"input": inputs.layout(x, layout), "gate": inputs.layout(gate, p.get("gate_layout", layout))}
