"""adagrad_step: one Adagrad update, as a pure function.

With p = param, g = grad, s = state_sum (the running sum of squared gradients) and t = step (the 1-based number
of this step, an int), the algorithm documented for torch.optim.Adagrad (maximize=False) is:

    clr = lr / (1 + (t - 1) * lr_decay)
    g = g + weight_decay * p                  (when weight_decay != 0)
    s = s + g * g
    p = p - clr * g / (sqrt(s) + eps)

and the step returns (p, s) as new tensors, never modifying its inputs. Defaults are torch.optim.Adagrad's
(lr=0.01, lr_decay=0, weight_decay=0, eps=1e-10). Everything is fp32. The reference follows the formulas with
plain torch ops; a fused kernel differs by a few fp32 roundings, far inside the default fp32 tolerance.

Inputs: gradients at scales 1 and 1e-2 with outliers and exact zeros; accumulated sums consistent with several
earlier steps; positions that have never seen a gradient (s = 0: there g = 0 too, so the update is
0 / (0 + eps) = 0, or, for fresh positions, g / (|g| + eps), a step of almost exactly clr). Steps 1, 4 and 100
with and without lr_decay, weight decay on and off, and transposed / strided (non-contiguous) tensors. The bench
is one flat parameter of 268M fp32 elements with its state.

The optimizer state is not always laid out like the parameter: in `check_wd_t` state_sum is contiguous next to a
transposed param and grad, in `check_strided_grad` it is transposed next to a contiguous param (and a strided
grad); a kernel that reads one tensor through another's strides, or walks each in its own memory order, passed
while they always shared one layout.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "adagrad_step",
    "category": "Optimizer",
    "level": 1,
    "signature": "(param, grad, state_sum, step, lr=0.01, lr_decay=0.0, weight_decay=0.0, eps=1e-10)",
    "dtypes": ["float32"],
    "forbidden": ["adagrad", "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
                  "addcmul", "addcdiv", "lerp", "sqrt", "rsqrt", "square", "pow"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "step": 4, "grad_scale": 0.01}},
        {"name": "smoke_decay_wd", "role": "smoke",
         "params": {"shape": [37, 29], "step": 4, "grad_scale": 1.0, "lr": 0.05, "lr_decay": 0.1,
                    "weight_decay": 0.01}},
        {"name": "check_tail_step1", "role": "check", "params": {"shape": [4097], "step": 1, "grad_scale": 1.0}},
        {"name": "check_lr_decay", "role": "check",
         "params": {"shape": [129, 127], "step": 100, "grad_scale": 0.01, "lr": 0.1, "lr_decay": 0.01}},
        {"name": "check_wd_t", "role": "check",
         "params": {"shape": [65, 129], "step": 4, "grad_scale": 0.01, "lr": 0.02, "weight_decay": 0.05,
                    "eps": 1e-08, "layout": "transposed", "state_sum_layout": "contiguous"}},
        {"name": "check_strided_grad", "role": "check",
         "params": {"shape": [5, 33, 65], "step": 4, "grad_scale": 1.0, "lr_decay": 0.05,
                    "grad_layout": "strided",
                    "state_sum_layout": "transposed"}},
        {"name": "bench", "role": "bench", "params": {"shape": [268435456], "step": 100, "grad_scale": 0.01}},
    ],
}

_HYPER = ("lr", "lr_decay", "weight_decay", "eps")


def reference(param, grad, state_sum, step, lr=0.01, lr_decay=0.0, weight_decay=0.0, eps=1e-10):
    # Named torch calls (not operators) so the forbidden list recognises this as a fallback; none is in place.
    clr = lr / (1 + (step - 1) * lr_decay)
    p, g, s = param, grad, state_sum
    if weight_decay != 0:
        g = torch.add(g, p, alpha=weight_decay)
    s = torch.add(s, torch.mul(g, g))
    p = torch.sub(p, torch.div(g, torch.add(torch.sqrt(s), eps)), alpha=clr)
    return p, s


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, scale, step = p["shape"], p["grad_scale"], p["step"]
    param = inputs.with_outliers(inputs.randn(shape, dtype, generator, offset=0.1), generator, magnitude=8.0)
    grad = inputs.with_outliers(inputs.randn(shape, dtype, generator, scale=scale), generator, fraction=1e-2,
                                magnitude=30.0 * scale)
    # The sum of step - 1 earlier squared gradients of the same scale (0 on the first step).
    state_sum = (step - 1) * inputs.uniform(shape, 0.2, 2.0, dtype, generator) * scale**2
    u = inputs.uniform(shape, 0, 1, "float32", generator)
    # About 2% never saw a gradient and see none now (g = s = 0); 2% are fresh (s = 0, g != 0).
    grad = grad * (u > 0.02).to(grad.dtype)
    state_sum = state_sum * (u > 0.04).to(state_sum.dtype)
    layout = p.get("layout", "contiguous")
    return {
        "param": inputs.layout(param, layout),
        "grad": inputs.layout(grad, p.get("grad_layout", layout)),
        "state_sum": inputs.layout(state_sum, p.get("state_sum_layout", layout)),
        "step": step,
        **{k: p[k] for k in _HYPER if k in p},
    }
