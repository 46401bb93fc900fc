"""Folds weight decay into the gradient in place (grad += weight_decay * param), then runs the plain update.

Splitting the step into a weight-decay kernel and a momentum kernel is reasonable, and the values it returns are
right; but to save a temporary it writes the decayed gradient back into `grad`'s storage. The step must leave
its inputs as they were (the caller's gradient may still be needed: clipping, logging, accumulation), so every
weight-decay workload with a contiguous gradient changes the caller's tensor.
"""

import torch
import triton
import triton.language as tl

EXPECT = "INPUT_MUTATED"


@triton.jit
def _decay_kernel(p_ptr, g_ptr, n, weight_decay, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask).to(tl.float32)
    tl.store(g_ptr + offs, (g + weight_decay * p).to(g_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _sgd_kernel(
    p_ptr, g_ptr, b_ptr, p_out_ptr, b_out_ptr, n,
    lr, momentum, one_minus_dampening, weight_decay,
    WEIGHT_DECAY: tl.constexpr, MOMENTUM: tl.constexpr, NESTEROV: tl.constexpr, BLOCK: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask).to(tl.float32)
    g = tl.load(g_ptr + offs, mask=mask).to(tl.float32)
    if WEIGHT_DECAY:
        g = g + weight_decay * p
    if MOMENTUM:
        b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
        b = momentum * b + one_minus_dampening * g
        tl.store(b_out_ptr + offs, b.to(b_out_ptr.dtype.element_ty), mask=mask)
        if NESTEROV:
            g = g + momentum * b
        else:
            g = b
    p = p - lr * g
    tl.store(p_out_ptr + offs, p.to(p_out_ptr.dtype.element_ty), mask=mask)


def sgd_step(param, grad, momentum_buffer, lr=0.01, momentum=0.9, dampening=0.0, weight_decay=0.0,
             nesterov=False):
    p = param.contiguous()
    g = grad.contiguous()
    b = momentum_buffer.contiguous()
    p_out = torch.empty_like(p)
    n = p.numel()
    if momentum == 0:
        # The buffer takes no part in the step: return an untouched copy, never the input itself.
        b_out = momentum_buffer.clone()
    else:
        b_out = torch.empty_like(b)
    if n == 0:
        return p_out, b_out
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    if weight_decay != 0:
        # g <- g + wd * p, written over the gradient: no temporary needed.
        _decay_kernel[grid](p, g, n, float(weight_decay), BLOCK=BLOCK)
    _sgd_kernel[grid](
        p, g, b, p_out, b_out, n,
        float(lr), float(momentum), float(1.0 - dampening), float(weight_decay),
        WEIGHT_DECAY=False, MOMENTUM=momentum != 0, NESTEROV=bool(nesterov),
        BLOCK=BLOCK, num_warps=4,
    )
    return p_out, b_out
