"""Shrinks the parameter by weight_decay * param, forgetting the learning-rate factor.

The AdamW paper writes the decay with its own schedule multiplier, and some implementations decay by
weight_decay alone; torch.optim.AdamW multiplies it by lr: p = p * (1 - lr * weight_decay). Without lr the decay
is 1/lr (here 100-1000) times too strong.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _adamw_kernel(
    p_ptr, g_ptr, m_ptr, v_ptr, p_out_ptr, m_out_ptr, v_out_ptr, n,
    lr, beta1, beta2, eps, decay, bias_correction1, bias_correction2,
    BLOCK: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    m = tl.load(m_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)
    # Decoupled weight decay: shrink the parameter; the gradient and the moments never see it.
    p = p * decay
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    m_hat = m / bias_correction1
    v_hat = v / bias_correction2
    p = p - lr * (m_hat / (tl.sqrt(v_hat) + eps))
    tl.store(p_out_ptr + offs, p, mask=mask)
    tl.store(m_out_ptr + offs, m, mask=mask)
    tl.store(v_out_ptr + offs, v, mask=mask)


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
               weight_decay=0.01):
    p, g, m, v = (t.contiguous() for t in (param, grad, exp_avg, exp_avg_sq))
    p_out, m_out, v_out = torch.empty_like(p), torch.empty_like(m), torch.empty_like(v)
    n = p.numel()
    if n == 0:
        return p_out, m_out, v_out
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    _adamw_kernel[grid](
        p, g, m, v, p_out, m_out, v_out, n,
        float(lr), float(beta1), float(beta2), float(eps), 1.0 - weight_decay,
        1.0 - beta1**step, 1.0 - beta2**step,
        BLOCK=BLOCK, num_warps=4,
    )
    return p_out, m_out, v_out
