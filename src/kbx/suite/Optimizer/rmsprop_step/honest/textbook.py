"""An honest rmsprop_step as a third party writes it: one fused fp32 elementwise kernel, eps added outside the sqrt.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rmsprop_kernel(p_ptr, g_ptr, v_ptr, p_out, v_out, n, lr, alpha, one_minus_alpha, eps, weight_decay,
                    BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0)
    if weight_decay != 0:
        g = g + weight_decay * p
    v = alpha * v + one_minus_alpha * g * g
    p = p - lr * g / (tl.sqrt(v) + eps)
    tl.store(p_out + offs, p, mask=mask)
    tl.store(v_out + offs, v, mask=mask)


def rmsprop_step(param, grad, square_avg, lr=0.01, alpha=0.99, eps=1e-08, weight_decay=0.0):
    p = param.contiguous()
    g = grad.contiguous()
    v = square_avg.contiguous()
    p_new = torch.empty(param.shape, dtype=param.dtype, device=param.device)
    v_new = torch.empty(square_avg.shape, dtype=square_avg.dtype, device=param.device)
    n = p.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _rmsprop_kernel[(triton.cdiv(n, BLOCK_SIZE),)](p, g, v, p_new, v_new, n, float(lr), float(alpha),
                                                       1.0 - float(alpha), float(eps), float(weight_decay),
                                                       BLOCK_SIZE=BLOCK_SIZE)
    return p_new, v_new
