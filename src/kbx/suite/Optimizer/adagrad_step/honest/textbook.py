"""An honest adagrad_step as a third party writes it: one fused fp32 elementwise kernel, clr formed on the host.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _adagrad_kernel(p_ptr, g_ptr, s_ptr, p_out, s_out, n, clr, weight_decay, eps, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    s = tl.load(s_ptr + offs, mask=mask, other=0.0)
    if weight_decay != 0:
        g = g + weight_decay * p
    s = s + g * g
    p = p - clr * g / (tl.sqrt(s) + eps)
    tl.store(p_out + offs, p, mask=mask)
    tl.store(s_out + offs, s, mask=mask)


def adagrad_step(param, grad, state_sum, step, lr=0.01, lr_decay=0.0, weight_decay=0.0, eps=1e-10):
    clr = lr / (1 + (step - 1) * lr_decay)
    p = param.contiguous()
    g = grad.contiguous()
    s = state_sum.contiguous()
    p_new = torch.empty(param.shape, dtype=param.dtype, device=param.device)
    s_new = torch.empty(state_sum.shape, dtype=state_sum.dtype, device=param.device)
    n = p.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _adagrad_kernel[(triton.cdiv(n, BLOCK_SIZE),)](p, g, s, p_new, s_new, n, float(clr), float(weight_decay),
                                                       float(eps), BLOCK_SIZE=BLOCK_SIZE)
    return p_new, s_new
