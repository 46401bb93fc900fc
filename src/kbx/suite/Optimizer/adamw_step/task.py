"""adamw_step: one AdamW update (decoupled weight decay, bias-corrected moments), as a pure function.

With p = param, g = grad, m = exp_avg, v = exp_avg_sq and t = step (the 1-based number of this step, an int),
the algorithm documented for torch.optim.AdamW (amsgrad=False, maximize=False) is:

    p = p - lr * weight_decay * p             (decoupled decay: it never enters g, m or v)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    m_hat = m / (1 - beta1 ** t)
    v_hat = v / (1 - beta2 ** t)
    p = p - lr * m_hat / (sqrt(v_hat) + eps)

and the step returns (p, m, v) as new tensors, never modifying its inputs. The default weight_decay is 0.01,
as in torch.optim.AdamW. Everything is fp32 (parameters and optimizer state). The reference follows the
formulas above with plain torch ops, its scalars (1 - beta1, 1 - beta2, the bias corrections) in Python's double
precision; a fused kernel differs by a few fp32 roundings of the tensors. Form those scalars on the host too:
1 - beta2 computed in fp32 from beta2 rounded to fp32 is off by 1.3e-5 of itself (beta2 = 0.999), and where the
new param cancels (param close to the update) the float64 truth rule rejects that; it did on 17 of the bench's 201M
elements.

Inputs: gradients at realistic scales (1e-2 and 1, with outliers and exact zeros), second moments consistent
with them, positions where g, m and v are all zero (only the decay moves those parameters), parameters with
outliers (so the decay term is large somewhere). Steps 1, 2, 9 and 1000, weight decay at its default, larger,
and off, other betas and eps, the learning rate large enough that lr * weight_decay * p is far above the
tolerance, and transposed / strided (non-contiguous) tensors. The bench is one flat parameter of 201M fp32
elements with its state.

The optimizer state is not always laid out like the parameter: in `check_late_step_t` exp_avg is contiguous next to
a transposed param, grad and exp_avg_sq, in `check_strided_grad` exp_avg_sq is transposed next to a contiguous
param and exp_avg (and a strided grad); a kernel that reads one tensor through another's strides, or walks each in
its own memory order, passed while they always shared one layout.
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "adamw_step",
    "category": "Optimizer",
    "level": 1,
    "signature": "(param, grad, exp_avg, exp_avg_sq, step, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08, "
                 "weight_decay=0.01)",
    "dtypes": ["float32"],
    "forbidden": ["adamw", "adam", "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
                  "addcmul", "addcdiv", "lerp", "sqrt", "rsqrt", "square", "pow"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [1000], "step": 2, "grad_scale": 0.01}},
        {"name": "smoke_step1", "role": "smoke",
         "params": {"shape": [37, 29], "step": 1, "grad_scale": 1.0, "lr": 0.01, "weight_decay": 0.1}},
        {"name": "check_tail", "role": "check",
         "params": {"shape": [4097], "step": 9, "grad_scale": 0.01, "lr": 0.003}},
        {"name": "check_betas_eps", "role": "check",
         "params": {"shape": [129, 127], "step": 2, "grad_scale": 0.01, "lr": 0.002, "beta1": 0.8, "beta2": 0.99,
                    "eps": 1e-06, "weight_decay": 0.05}},
        {"name": "check_no_decay", "role": "check",
         "params": {"shape": [33, 127], "step": 5, "grad_scale": 1.0, "lr": 0.01, "weight_decay": 0.0}},
        {"name": "check_late_step_t", "role": "check",
         "params": {"shape": [65, 129], "step": 1000, "grad_scale": 1.0, "lr": 0.001, "weight_decay": 0.1,
                    "layout": "transposed", "exp_avg_layout": "contiguous"}},
        {"name": "check_strided_grad", "role": "check",
         "params": {"shape": [5, 33, 65], "step": 11, "grad_scale": 0.01, "lr": 0.004, "grad_layout": "strided",
                    "exp_avg_sq_layout": "transposed"}},
        {"name": "bench", "role": "bench", "params": {"shape": [201326592], "step": 100, "grad_scale": 0.01}},
    ],
}

_HYPER = ("lr", "beta1", "beta2", "eps", "weight_decay")


def reference(param, grad, exp_avg, exp_avg_sq, step, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
              weight_decay=0.01):
    # Named torch calls (not operators) so the forbidden list recognises this as a fallback; none is in place.
    p, g, m, v = param, grad, exp_avg, exp_avg_sq
    p = torch.mul(p, 1 - lr * weight_decay)
    m = torch.add(torch.mul(m, beta1), g, alpha=1 - beta1)
    v = torch.add(torch.mul(v, beta2), torch.mul(g, g), alpha=1 - beta2)
    m_hat = torch.div(m, 1 - beta1**step)
    v_hat = torch.div(v, 1 - beta2**step)
    p = torch.sub(p, torch.div(m_hat, torch.add(torch.sqrt(v_hat), eps)), alpha=lr)
    return p, m, v


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape, s = p["shape"], p["grad_scale"]
    param = inputs.with_outliers(inputs.randn(shape, dtype, generator, offset=0.1), generator, fraction=1e-2,
                                 magnitude=20.0)
    grad = inputs.with_outliers(inputs.randn(shape, dtype, generator, scale=s), generator, fraction=1e-2,
                                magnitude=30.0 * s)
    exp_avg = inputs.randn(shape, dtype, generator, scale=0.5 * s)
    exp_avg_sq = inputs.randn(shape, dtype, generator, scale=s).square() + (0.1 * s) ** 2
    # About 2% of positions have never seen a gradient: g = m = v = 0 there.
    live = (inputs.uniform(shape, 0, 1, "float32", generator) > 0.02).to(grad.dtype)
    grad, exp_avg, exp_avg_sq = grad * live, exp_avg * live, exp_avg_sq * live
    layout = p.get("layout", "contiguous")
    return {
        "param": inputs.layout(param, layout),
        "grad": inputs.layout(grad, p.get("grad_layout", layout)),
        "exp_avg": inputs.layout(exp_avg, p.get("exp_avg_layout", layout)),
        "exp_avg_sq": inputs.layout(exp_avg_sq, p.get("exp_avg_sq_layout", layout)),
        "step": p["step"],
        **{k: p[k] for k in _HYPER if k in p},
    }
