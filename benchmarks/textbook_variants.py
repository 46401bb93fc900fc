"""Honest kernels as third parties write them: each operation from its textbook formula, in float32.

`benchmarks/calibrate_contracts.py --variants` measures these beside the suite's solutions. A kernel library or a
model rarely calls the accurate special function PyTorch uses (expm1, log1p); it writes the definition with exp and
log, computed in float32 and rounded once to the output's dtype. Such a kernel is honest: the contract must accept
it unless the task says why not (log1p and expm1 exist to ask for the accurate function, so they have no variant
here). Written from the operations' definitions; torch's elementwise functions stand for Triton's `tl.exp`,
`tl.log`, `tl.sqrt`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805


def _f32(fn: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
    """`fn` on float32 copies of its tensor arguments, rounded once to the first tensor argument's dtype."""
    def run(*args: object, **kwargs: object) -> torch.Tensor:
        tensors = [v for v in (*args, *kwargs.values()) if isinstance(v, torch.Tensor)]
        dtype = tensors[0].dtype

        def up(v: object) -> object:
            return v.float() if isinstance(v, torch.Tensor) and v.is_floating_point() else v
        return fn(*(up(a) for a in args), **{k: up(v) for k, v in kwargs.items()}).to(dtype)
    return run


def _exp_minus_one(x: torch.Tensor) -> torch.Tensor:
    return torch.exp(x) - 1.0


def _softplus(input: torch.Tensor, beta: float = 1.0, threshold: float = 20.0) -> torch.Tensor:
    bx = beta * input
    return torch.where(bx > threshold, input, torch.log(1.0 + torch.exp(torch.clamp(bx, max=threshold))) / beta)


def _tanh_by_sigmoid(x: torch.Tensor) -> torch.Tensor:
    return 2.0 / (1.0 + torch.exp(-2.0 * x)) - 1.0


def _tanh_by_exp(x: torch.Tensor) -> torch.Tensor:
    e = torch.exp(-2.0 * x.abs())
    return torch.sign(x) * (1.0 - e) / (1.0 + e)


def _gelu(input: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    x = input
    if approximate == "tanh":
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def _logaddexp(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """max + log(1 + exp(-|a - b|)), with the infinities the definition gives (where a == b == +-inf, a - b is NaN)."""
    top = torch.maximum(a, b)
    gap = torch.where(a == b, torch.zeros_like(a), (a - b).abs())
    return torch.where(torch.isinf(top), top, top + torch.log(1.0 + torch.exp(-gap)))


def _linear_tanh(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    z = input @ weight.T + (bias if bias is not None else 0.0)  # float32 products and sums, as tl.dot's
    return _tanh_by_sigmoid(z)


def _bce_with_logits(input: torch.Tensor, target: torch.Tensor, weight: torch.Tensor | None = None,
                     reduction: str = "mean", pos_weight: torch.Tensor | None = None) -> torch.Tensor:
    """(1 - y) x + (1 + (p - 1) y) (log(1 + exp(-|x|)) + max(-x, 0)), weighted, then reduced."""
    x, y = input, target
    scale = 1.0 if pos_weight is None else 1.0 + (pos_weight - 1.0) * y
    loss = (1.0 - y) * x + scale * (torch.log(1.0 + torch.exp(-x.abs())) + torch.clamp(-x, min=0.0))
    loss = loss if weight is None else loss * weight
    return {"none": loss, "sum": loss.sum(), "mean": loss.mean()}[reduction]


VARIANTS: dict[str, dict[str, Callable[..., torch.Tensor]]] = {
    "elu": {"exp_minus_1": _f32(lambda input, alpha=1.0: torch.where(input > 0, input,
                                                                     alpha * _exp_minus_one(input)))},
    "selu": {"exp_minus_1": _f32(lambda input: SELU_SCALE * torch.where(input > 0, input,
                                                                        SELU_ALPHA * _exp_minus_one(input)))},
    "softplus": {"log_1_plus_exp": _f32(_softplus)},
    "logsigmoid": {"stable_log": _f32(lambda input: torch.clamp(input, max=0.0)
                                      - torch.log(1.0 + torch.exp(-input.abs())))},
    "sigmoid": {"one_over": _f32(lambda input: 1.0 / (1.0 + torch.exp(-input)))},
    "silu": {"x_over": _f32(lambda input: input / (1.0 + torch.exp(-input)))},
    "tanh": {"by_sigmoid": _f32(lambda input: _tanh_by_sigmoid(input)),
             "by_exp": _f32(lambda input: _tanh_by_exp(input))},
    "mish": {"tanh_softplus": _f32(lambda input: input * torch.tanh(_softplus(input)))},
    "gelu": {"erf_formula": _f32(_gelu)},
    "logaddexp": {"max_plus_log": _f32(lambda input, other: _logaddexp(input, other))},
    "linear_tanh": {"dot_then_sigmoid_form": _f32(_linear_tanh)},
    "binary_cross_entropy_with_logits": {"log_1_plus_exp": _f32(_bce_with_logits)},
    "rsqrt": {"one_over_sqrt": _f32(lambda input: 1.0 / torch.sqrt(input))},
    "lerp": {"a_plus_w_diff": _f32(lambda input, end, weight: input + weight * (end - input))},
}
"""Per task, each textbook variant by name: a function of the reference's arguments."""
