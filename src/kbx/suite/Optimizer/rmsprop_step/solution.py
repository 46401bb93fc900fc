"""rmsprop_step in Triton: the whole RMSprop update fused into one elementwise pass.

Eager PyTorch runs the update as about eight elementwise kernels (decay, square, two for the running average,
sqrt, add eps, divide, subtract), each streaming full-size fp32 tensors through HBM. Here each program loads
BLOCK elements of param, grad and square_avg once, does the arithmetic in registers and writes the new param
and square average once, into fresh tensors (the inputs are never written). Weight decay is a constexpr switch.

Memory traffic: 3 reads + 2 writes of fp32 per element (20 bytes). On an H100 (~3 TB/s) the 268M-element bench
moves 5.4 GB: about 1.8 ms, against roughly 8 ms for the unfused eager sequence. Non-contiguous inputs are made
contiguous first (one extra copy each); outputs are contiguous with the param's shape. Offsets are int64 so the
same kernel serves flat parameters beyond 2^31 elements.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rmsprop_kernel(
    p_ptr, g_ptr, v_ptr, p_out_ptr, v_out_ptr, n,
    lr, alpha, eps, weight_decay,
    WEIGHT_DECAY: tl.constexpr, BLOCK: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)
    if WEIGHT_DECAY:
        g = g + weight_decay * p
    # alpha weighs the old average, 1 - alpha the new squared gradient.
    v = alpha * v + (1.0 - alpha) * g * g
    # eps outside the square root: where g = v = 0 the update is exactly 0.
    p = p - lr * (g / (tl.sqrt(v) + eps))
    tl.store(p_out_ptr + offs, p, mask=mask)
    tl.store(v_out_ptr + offs, v, mask=mask)


def rmsprop_step(param, grad, square_avg, lr=0.01, alpha=0.99, eps=1e-08, weight_decay=0.0):
    p, g, v = (t.contiguous() for t in (param, grad, square_avg))
    p_out, v_out = torch.empty_like(p), torch.empty_like(v)
    n = p.numel()
    if n == 0:
        return p_out, v_out
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    _rmsprop_kernel[grid](
        p, g, v, p_out, v_out, n, float(lr), float(alpha), float(eps), float(weight_decay),
        WEIGHT_DECAY=weight_decay != 0, BLOCK=BLOCK, num_warps=4,
    )
    return p_out, v_out
