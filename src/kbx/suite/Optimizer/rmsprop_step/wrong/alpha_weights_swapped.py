"""Weighs the running average the wrong way round: v = (1 - alpha) * v + alpha * g * g.

alpha (0.99 by default) is the smoothing constant: it multiplies the OLD average, so v changes slowly. Swapping
the weights makes v almost the current squared gradient, which changes both the returned average and the
step size.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _rmsprop_kernel(
    p_ptr, g_ptr, v_ptr, p_out_ptr, v_out_ptr, n,
    lr, alpha, eps, weight_decay,
    WEIGHT_DECAY: tl.constexpr, BLOCK: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)
    if WEIGHT_DECAY:
        g = g + weight_decay * p
    v = (1.0 - alpha) * v + alpha * g * g
    # eps outside the square root: where g = v = 0 the update is exactly 0.
    p = p - lr * (g / (tl.sqrt(v) + eps))
    tl.store(p_out_ptr + offs, p, mask=mask)
    tl.store(v_out_ptr + offs, v, mask=mask)


def rmsprop_step(param, grad, square_avg, lr=0.01, alpha=0.99, eps=1e-08, weight_decay=0.0):
    p, g, v = (t.contiguous() for t in (param, grad, square_avg))
    p_out, v_out = torch.empty_like(p), torch.empty_like(v)
    n = p.numel()
    if n == 0:
        return p_out, v_out
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    _rmsprop_kernel[grid](
        p, g, v, p_out, v_out, n, float(lr), float(alpha), float(eps), float(weight_decay),
        WEIGHT_DECAY=weight_decay != 0, BLOCK=BLOCK, num_warps=4,
    )
    return p_out, v_out
