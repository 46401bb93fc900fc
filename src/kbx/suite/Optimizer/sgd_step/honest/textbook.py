"""An honest sgd_step as a third party writes it: one fused fp32 elementwise kernel, new param and buffer stored once.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sgd_kernel(p_ptr, g_ptr, b_ptr, p_out, b_out, n, lr, momentum, dampening, weight_decay,
                NESTEROV: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if weight_decay != 0:
        g = g + weight_decay * p
    if momentum != 0:
        b = momentum * b + (1.0 - dampening) * g
        if NESTEROV:
            g = g + momentum * b
        else:
            g = b
    p = p - lr * g
    tl.store(p_out + offs, p.to(p_out.dtype.element_ty), mask=mask)
    tl.store(b_out + offs, b.to(b_out.dtype.element_ty), mask=mask)


def sgd_step(param, grad, momentum_buffer, lr=0.01, momentum=0.9, dampening=0.0, weight_decay=0.0, nesterov=False):
    p = param.contiguous()
    g = grad.contiguous()
    b = momentum_buffer.contiguous()
    p_new = torch.empty(param.shape, dtype=param.dtype, device=param.device)
    b_new = torch.empty(momentum_buffer.shape, dtype=momentum_buffer.dtype, device=param.device)
    n = p.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _sgd_kernel[(triton.cdiv(n, BLOCK_SIZE),)](p, g, b, p_new, b_new, n, float(lr), float(momentum),
                                                   float(dampening), float(weight_decay),
                                                   NESTEROV=bool(nesterov), BLOCK_SIZE=BLOCK_SIZE)
    return p_new, b_new
