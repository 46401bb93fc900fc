"""Adam in the "efficient" form of Kingma & Ba (section 2) and TensorFlow: the bias corrections folded into the
step size, eps added to the uncorrected sqrt(v).

    step_size = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
    p = p - step_size * m / (sqrt(v) + eps)

This equals lr * m_hat / (sqrt(v_hat) + eps / sqrt(1 - beta2^t)): eps is effectively multiplied by
1 / sqrt(1 - beta2^t), 31.6x at step 1, 11.9x at step 7. torch.optim.Adam adds eps to sqrt(v_hat). The difference
shows wherever sqrt(v_hat) is not far above eps, i.e. for small gradients (1e-7 .. 1e-5, common for embeddings
and late layers) in the first steps. `check_tiny_grads` (gradients of about 1e-8 at step 1, sqrt(v_hat) about 1e-7)
catches it on most elements, by over 1,000 times an element's bound (CPU, seeds 1, 2, 11-13); elsewhere only on a
few elements whose update is large next to the parameter (`smoke_wd_step1`: one of 1,073 at 3.97x in one run).
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _adam_kernel(p_ptr, g_ptr, m_ptr, v_ptr, p_out, m_out, v_out, n,
                 lr, beta1, one_minus_beta1, beta2, one_minus_beta2, eps, weight_decay, bias_correction1,
                 bias_correction2, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0)
    g = g + weight_decay * p
    m = beta1 * m + one_minus_beta1 * g
    v = beta2 * v + one_minus_beta2 * g * g
    step_size = lr * tl.sqrt(bias_correction2) / bias_correction1
    p = p - step_size * m / (tl.sqrt(v) + eps)
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
    _adam_kernel[grid](p, g, m, v, p_new, m_new, v_new, n, lr, beta1, 1.0 - beta1, beta2, 1.0 - beta2, eps,
                       weight_decay, bias_correction1, bias_correction2, BLOCK_SIZE=1024)
    return p_new.view(param.shape), m_new.view(param.shape), v_new.view(param.shape)
