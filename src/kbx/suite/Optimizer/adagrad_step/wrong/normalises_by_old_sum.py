"""Divides by the square root of the OLD sum, adding this step's g * g only afterwards.

Adagrad accumulates first and then normalises, so the current gradient is part of its own denominator. Using
the previous sum makes every step larger, and at a fresh position (sum 0, g != 0) the step is g / eps:
astronomically large instead of about lr.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _adagrad_kernel(
    p_ptr, g_ptr, s_ptr, p_out_ptr, s_out_ptr, n,
    clr, weight_decay, eps,
    WEIGHT_DECAY: tl.constexpr, BLOCK: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    s = tl.load(s_ptr + offs, mask=mask)
    if WEIGHT_DECAY:
        g = g + weight_decay * p
    p = p - clr * (g / (tl.sqrt(s) + eps))
    s = s + g * g
    tl.store(p_out_ptr + offs, p, mask=mask)
    tl.store(s_out_ptr + offs, s, mask=mask)


def adagrad_step(param, grad, state_sum, step, lr=0.01, lr_decay=0.0, weight_decay=0.0, eps=1e-10):
    p, g, s = (t.contiguous() for t in (param, grad, state_sum))
    p_out, s_out = torch.empty_like(p), torch.empty_like(s)
    n = p.numel()
    if n == 0:
        return p_out, s_out
    clr = lr / (1 + (step - 1) * lr_decay)
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    _adagrad_kernel[grid](
        p, g, s, p_out, s_out, n, float(clr), float(weight_decay), float(eps),
        WEIGHT_DECAY=weight_decay != 0, BLOCK=BLOCK, num_warps=4,
    )
    return p_out, s_out
