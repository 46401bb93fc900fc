"""sgd_step in Triton: the whole momentum-SGD update fused into one elementwise pass.

Written eagerly, the update is four or five separate kernels (weight decay, buffer update, nesterov, param
update), each reading and writing full-size tensors. Here each program loads BLOCK elements of param, grad and
the momentum buffer once, does all of the arithmetic in fp32 registers, and writes the new param and the new
buffer once, into fresh tensors (the inputs are never written). The flags that change the formula
(weight decay on/off, momentum on/off, nesterov) are constexprs, so each variant compiles to straight-line code.

Memory traffic: 3 reads + 2 writes per element (20 bytes in fp32; 12 with momentum = 0, which skips the buffer).
Non-contiguous inputs are made contiguous first (one extra copy each); the outputs are contiguous with the
param's shape. On an H100 (~3 TB/s) the 256M-element fp32 bench moves 5.4 GB: about 1.8 ms, against ~10 ms for
the unfused eager sequence. Offsets are int64 so the same code serves flat parameters beyond 2^31 elements.
"""

import torch
import triton
import triton.language as tl


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
    _sgd_kernel[grid](
        p, g, b, p_out, b_out, n,
        float(lr), float(momentum), float(1.0 - dampening), float(weight_decay),
        WEIGHT_DECAY=weight_decay != 0, MOMENTUM=momentum != 0, NESTEROV=bool(nesterov),
        BLOCK=BLOCK, num_warps=4,
    )
    return p_out, b_out
