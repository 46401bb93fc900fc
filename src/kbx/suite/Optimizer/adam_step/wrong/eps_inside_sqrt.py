"""Adds eps under the square root: m_hat / sqrt(v_hat + eps) instead of m_hat / (sqrt(v_hat) + eps).

A common variant (it avoids sqrt(0)), but not the documented Adam: with eps = 1e-8 the effective epsilon
becomes sqrt(eps) = 1e-4, which matters wherever sqrt(v_hat) is within a few orders of magnitude of it. Here
that is the positions with no gradient history, where weight decay alone makes g ~ 1e-2 * p, and the
eps = 1e-6 workload: the update there shrinks by 1% or more, hundreds of times the tolerance; and
`check_tiny_grads` (sqrt(v_hat) about 1e-7, a thousandth of sqrt(eps)), where most of the update is lost.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _adam_kernel(
    p_ptr, g_ptr, m_ptr, v_ptr, p_out_ptr, m_out_ptr, v_out_ptr, n,
    lr, beta1, beta2, eps, weight_decay, bias_correction1, bias_correction2,
    WEIGHT_DECAY: tl.constexpr, BLOCK: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    m = tl.load(m_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)
    if WEIGHT_DECAY:
        g = g + weight_decay * p  # L2 decay goes through the gradient (Adam, not AdamW)
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    m_hat = m / bias_correction1
    v_hat = v / bias_correction2
    # eps is added after the square root: where g, m and v are all 0 the update is exactly 0.
    p = p - lr * (m_hat / tl.sqrt(v_hat + eps))
    tl.store(p_out_ptr + offs, p, mask=mask)
    tl.store(m_out_ptr + offs, m, mask=mask)
    tl.store(v_out_ptr + offs, v, mask=mask)


def adam_step(param, grad, exp_avg, exp_avg_sq, step, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
              weight_decay=0.0):
    p, g, m, v = (t.contiguous() for t in (param, grad, exp_avg, exp_avg_sq))
    p_out, m_out, v_out = torch.empty_like(p), torch.empty_like(m), torch.empty_like(v)
    n = p.numel()
    if n == 0:
        return p_out, m_out, v_out
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    _adam_kernel[grid](
        p, g, m, v, p_out, m_out, v_out, n,
        float(lr), float(beta1), float(beta2), float(eps), float(weight_decay),
        1.0 - beta1**step, 1.0 - beta2**step,
        WEIGHT_DECAY=weight_decay != 0, BLOCK=BLOCK, num_warps=4,
    )
    return p_out, m_out, v_out
