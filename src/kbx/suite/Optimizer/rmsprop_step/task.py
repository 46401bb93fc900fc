"""rmsprop_step: one RMSprop update (no momentum, not centered), as a pure function.

With p = param, g = grad and v = square_avg (the running average of squared gradients), the algorithm
documented for torch.optim.RMSprop with momentum=0, centered=False and maximize=False is:

    g = g + weight_decay * p                  (when weight_decay != 0)
    v = alpha * v + (1 - alpha) * g * g
    p = p - lr * g / (sqrt(v) + eps)

and the step returns (p, v) as new tensors, never modifying its inputs. Defaults are torch.optim.RMSprop's
(lr=0.01, alpha=0.99, eps=1e-8, weight_decay=0). Everything is fp32. The reference follows the formulas with
plain torch ops; a fused kernel differs by a few fp32 roundings, far inside the default fp32 tolerance.

Inputs: gradients at three scales (1, 1e-2 and 1e-4: at 1e-4, sqrt(v) ~ 1e-4 and eps placement matters), with
outliers and exact zeros, square averages consistent with them, and positions where g and v are both zero
(the update is 0 / (0 + eps) = 0). Weight decay on and off, other alpha and eps, and transposed / strided
(non-contiguous) tensors. The bench is one flat parameter of 268M fp32 elements with its state.

The optimizer state is not always laid out like the parameter: in `check_wd_t` square_avg is contiguous next to a
transposed param and grad, in `check_strided_grad` it is transposed next to a contiguous param (and a strided
grad); a kernel that reads one tensor through another's strides, or walks each in its own memory order, passed
while they always shared one layout.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "rmsprop_step",
    "category": "Optimizer",
    "level": 1,
    "signature": "(param, grad, square_avg, lr=0.01, alpha=0.99, eps=1e-08, weight_decay=0.0)",
    "dtypes": ["float32"],
    "forbidden": ["rmsprop", "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
                  "addcmul", "addcdiv", "lerp", "sqrt", "rsqrt", "square", "pow"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "grad_scale": 0.01}},
        {"name": "smoke_wd_tiny_grads", "role": "smoke",
         "params": {"shape": [37, 29], "grad_scale": 0.0001, "lr": 0.001, "weight_decay": 0.001}},
        {"name": "check_tail", "role": "check", "params": {"shape": [4097], "grad_scale": 1.0, "lr": 0.003}},
        {"name": "check_alpha_eps", "role": "check",
         "params": {"shape": [129, 127], "grad_scale": 0.0001, "lr": 0.001, "alpha": 0.9, "eps": 1e-06}},
        {"name": "check_wd_t", "role": "check",
         "params": {"shape": [65, 129], "grad_scale": 0.01, "lr": 0.002, "weight_decay": 0.01,
                    "layout": "transposed", "square_avg_layout": "contiguous"}},
        {"name": "check_strided_grad", "role": "check",
         "params": {"shape": [5, 33, 65], "grad_scale": 0.0001, "lr": 0.001, "grad_layout": "strided",
                    "square_avg_layout": "transposed"}},
        {"name": "bench", "role": "bench", "params": {"shape": [268435456], "grad_scale": 0.01}},
    ],
}

_HYPER = ("lr", "alpha", "eps", "weight_decay")


def reference(param, grad, square_avg, lr=0.01, alpha=0.99, eps=1e-08, weight_decay=0.0):
    # Named torch calls (not operators) so the forbidden list recognises this as a fallback; none is in place.
    p, g, v = param, grad, square_avg
    if weight_decay != 0:
        g = torch.add(g, p, alpha=weight_decay)
    v = torch.add(torch.mul(v, alpha), torch.mul(g, g), alpha=1 - alpha)
    p = torch.sub(p, torch.div(g, torch.add(torch.sqrt(v), eps)), alpha=lr)
    return p, v


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, s = p["shape"], p["grad_scale"]
    param = inputs.with_outliers(inputs.randn(shape, dtype, generator, offset=0.1), generator, magnitude=8.0)
    grad = inputs.with_outliers(inputs.randn(shape, dtype, generator, scale=s), generator, fraction=1e-2,
                                magnitude=30.0 * s)
    square_avg = inputs.randn(shape, dtype, generator, scale=s).square() + (0.1 * s) ** 2
    # About 2% of positions have never seen a gradient: g = v = 0 there.
    live = (inputs.uniform(shape, 0, 1, "float32", generator) > 0.02).to(grad.dtype)
    grad, square_avg = grad * live, square_avg * live
    layout = p.get("layout", "contiguous")
    return {
        "param": inputs.layout(param, layout),
        "grad": inputs.layout(grad, p.get("grad_layout", layout)),
        "square_avg": inputs.layout(square_avg, p.get("square_avg_layout", layout)),
        **{k: p[k] for k in _HYPER if k in p},
    }
