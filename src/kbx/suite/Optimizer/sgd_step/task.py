"""sgd_step: one step of stochastic gradient descent with momentum, as a pure function.

With g = grad, p = param and b = momentum_buffer (the buffer left by earlier steps), torch.optim.SGD documents:

    g = g + weight_decay * p                       (when weight_decay != 0)
    b = momentum * b + (1 - dampening) * g         (when momentum != 0)
    g = g + momentum * b   if nesterov   else   b  (when momentum != 0)
    p = p - lr * g

and returns (p, b). When momentum == 0 the buffer is not used: g stays as it is and b is returned unchanged.
This is the update `torch.optim.SGD(..., maximize=False)` applies to one parameter from its second step on (the
first step, which initialises b = g, is not modelled: the buffer is always given). The step RETURNS new
tensors and never modifies its inputs (a candidate that updates param or the buffer in place fails with
INPUT_MUTATED). Outputs have the inputs' shape and dtype; bf16 tensors are computed in fp32 and rounded once per
output (the reference upcasts, so the only rounding is the final one).

Inputs: parameters with outliers, gradients with exact zeros and a wide range, buffers of mixed sign; weight
decay on and off, nesterov on and off, dampening, momentum = 0, the defaults, and transposed / strided
(non-contiguous) parameters, gradients and buffers. The bench is one flat parameter of 256M fp32 elements
(the whole model's parameters in one buffer, as fused optimizers see them).

The optimizer state is not always laid out like the parameter: in `check_nesterov_t` momentum_buffer is contiguous
next to a transposed param and grad, in `check_strided_grad` it is transposed next to a contiguous param (and a
strided grad); a kernel that reads one tensor through another's strides, or walks each in its own memory order,
passed while they always shared one layout.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "sgd_step",
    "category": "Optimizer",
    "level": 1,
    "signature": "(param, grad, momentum_buffer, lr=0.01, momentum=0.9, dampening=0.0, weight_decay=0.0, "
                 "nesterov=False)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["sgd", "add", "sub", "subtract", "mul", "multiply", "addcmul", "addcdiv", "lerp", "axpy"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000]}},
        {"name": "smoke_nesterov_wd", "role": "smoke",
         "params": {"shape": [37, 29], "lr": 0.05, "weight_decay": 0.01, "nesterov": True}},
        {"name": "check_tail", "role": "check",
         "params": {"shape": [4097], "lr": 0.1, "momentum": 0.8, "weight_decay": 0.02}},
        {"name": "check_dampening", "role": "check",
         "params": {"shape": [129, 127], "lr": 0.03, "momentum": 0.95, "dampening": 0.25}},
        {"name": "check_nesterov_t", "role": "check",
         "params": {"shape": [65, 129], "lr": 0.05, "momentum": 0.9, "weight_decay": 0.05, "nesterov": True,
                    "layout": "transposed", "momentum_buffer_layout": "contiguous"}},
        {"name": "check_no_momentum", "role": "check",
         "params": {"shape": [33, 127], "lr": 0.2, "momentum": 0.0, "weight_decay": 0.1}},
        {"name": "check_strided_grad", "role": "check",
         "params": {"shape": [5, 33, 65], "lr": 0.05, "momentum": 0.9, "grad_layout": "strided",
                    "momentum_buffer_layout": "transposed"}},
        {"name": "bench", "role": "bench",
         "params": {"shape": [268435456], "lr": 0.01, "momentum": 0.9, "weight_decay": 0.0001}},
        {"name": "bench_nesterov", "role": "bench",
         "params": {"shape": [268435456], "lr": 0.01, "momentum": 0.9, "weight_decay": 0.0001, "nesterov": True}},
    ],
}

_HYPER = ("lr", "momentum", "dampening", "weight_decay", "nesterov")


def reference(param, grad, momentum_buffer, lr=0.01, momentum=0.9, dampening=0.0, weight_decay=0.0,
              nesterov=False):
    # Named torch calls (not operators), so the forbidden list can recognise this as a fallback.
    p, g, b = param.float(), grad.float(), momentum_buffer.float()
    if weight_decay != 0:
        g = torch.add(g, p, alpha=weight_decay)
    if momentum != 0:
        b = torch.add(torch.mul(b, momentum), g, alpha=1 - dampening)
        g = torch.add(g, b, alpha=momentum) if nesterov else b
    p = torch.add(p, g, alpha=-lr)
    return p.to(param.dtype), b.to(momentum_buffer.dtype, copy=True)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    param = inputs.with_outliers(inputs.randn(shape, dtype, generator, offset=0.1), generator, magnitude=8.0)
    grad = inputs.randn(shape, dtype, generator, scale=0.5)
    grad = inputs.with_outliers(grad, generator, fraction=1e-2, magnitude=20.0)
    grad = grad * (inputs.uniform(shape, 0, 1, "float32", generator) > 0.05).to(grad.dtype)  # exact zeros
    buf = inputs.randn(shape, dtype, generator, scale=0.3, offset=-0.05)
    layout = p.get("layout", "contiguous")
    return {
        "param": inputs.layout(param, layout),
        "grad": inputs.layout(grad, p.get("grad_layout", layout)),
        "momentum_buffer": inputs.layout(buf, p.get("momentum_buffer_layout", layout)),
        **{k: p[k] for k in _HYPER if k in p},
    }
