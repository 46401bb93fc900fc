"""An honest adam_step as a third party writes it: `1 - beta` formed in the kernel in fp32, the bias corrections on
the host.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _adam_kernel(p_ptr, g_ptr, m_ptr, v_ptr, p_out, m_out, v_out, n,
                 lr, beta1, beta2, eps, weight_decay, bias_correction1, bias_correction2,
                 BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0)
    g = g + weight_decay * p
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    m_hat = m / bias_correction1
    v_hat = v / bias_correction2
    p = p - lr * m_hat / (tl.sqrt(v_hat) + eps)
    tl.store(p_out + offs, p, mask=mask)
    tl.store(m_out + offs, m, mask=mask)
    tl.store(v_out + offs, v, mask=mask)


def adam_step(param, grad, exp_avg, exp_avg_sq, step, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
              weight_decay=0.0):
    p = param.contiguous()
    g = grad.contiguous()
    m = exp_avg.contiguous()
    v = exp_avg_sq.contiguous()
    p_new = torch.empty_like(p)
    m_new = torch.empty_like(m)
    v_new = torch.empty_like(v)
    n = p.numel()
    bias_correction1 = 1.0 - beta1 ** step
    bias_correction2 = 1.0 - beta2 ** step
    grid = (triton.cdiv(n, 1024),)
    _adam_kernel[grid](p, g, m, v, p_new, m_new, v_new, n, lr, beta1, beta2, eps, weight_decay,
                       bias_correction1, bias_correction2, BLOCK_SIZE=1024)
    return p_new.view(param.shape), m_new.view(param.shape), v_new.view(param.shape)
