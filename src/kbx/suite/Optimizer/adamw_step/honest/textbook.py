"""An honest adamw_step as a third party writes it: one fused fp32 kernel, all scalar coefficients formed on the host.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _adamw_kernel(p_ptr, g_ptr, m_ptr, v_ptr, p_out, m_out, v_out, n, lr, beta1, beta2, one_minus_beta1,
                  one_minus_beta2, bias_corr1, bias_corr2, eps, decay_factor, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0)
    p = p * decay_factor
    m = beta1 * m + one_minus_beta1 * g
    v = beta2 * v + one_minus_beta2 * g * g
    m_hat = m / bias_corr1
    v_hat = v / bias_corr2
    p = p - lr * m_hat / (tl.sqrt(v_hat) + eps)
    tl.store(p_out + offs, p, mask=mask)
    tl.store(m_out + offs, m, mask=mask)
    tl.store(v_out + offs, v, mask=mask)


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
               weight_decay=0.01):
    p = param.contiguous()
    g = grad.contiguous()
    m = exp_avg.contiguous()
    v = exp_avg_sq.contiguous()
    p_new = torch.empty(param.shape, dtype=param.dtype, device=param.device)
    m_new = torch.empty(exp_avg.shape, dtype=exp_avg.dtype, device=param.device)
    v_new = torch.empty(exp_avg_sq.shape, dtype=exp_avg_sq.dtype, device=param.device)
    n = p.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _adamw_kernel[(triton.cdiv(n, BLOCK_SIZE),)](
            p, g, m, v, p_new, m_new, v_new, n, float(lr), float(beta1), float(beta2), 1.0 - beta1, 1.0 - beta2,
            1.0 - beta1 ** step, 1.0 - beta2 ** step, float(eps), 1.0 - lr * weight_decay, BLOCK_SIZE=BLOCK_SIZE)
    return p_new, m_new, v_new
