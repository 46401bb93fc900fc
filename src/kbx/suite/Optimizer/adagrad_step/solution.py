"""adagrad_step in Triton: the whole Adagrad update fused into one elementwise pass.

Eager PyTorch runs the update as about seven elementwise kernels (decay, square, accumulate, sqrt, add eps,
divide, subtract), each streaming full-size fp32 tensors through HBM. Here each program loads BLOCK elements of
param, grad and state_sum once, does the arithmetic in registers and writes the new param and sum once, into
fresh tensors (the inputs are never written). The decayed learning rate lr / (1 + (step - 1) * lr_decay) is a
per-step scalar computed on the host; weight decay is a constexpr switch.

Memory traffic: 3 reads + 2 writes of fp32 per element (20 bytes). On an H100 (~3 TB/s) the 268M-element bench
moves 5.4 GB: about 1.8 ms, against roughly 7 ms for the unfused eager sequence. Non-contiguous inputs are made
contiguous first (one extra copy each); outputs are contiguous with the param's shape. Offsets are int64 so the
same kernel serves flat parameters beyond 2^31 elements.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _adagrad_kernel(
    p_ptr, g_ptr, s_ptr, p_out_ptr, s_out_ptr, n,
    clr, weight_decay, eps,
    WEIGHT_DECAY: tl.constexpr, BLOCK: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    s = tl.load(s_ptr + offs, mask=mask)
    if WEIGHT_DECAY:
        g = g + weight_decay * p
    # Accumulate first: this step's gradient is part of its own normaliser (a fresh position steps by ~clr).
    s = s + g * g
    p = p - clr * (g / (tl.sqrt(s) + eps))
    tl.store(p_out_ptr + offs, p, mask=mask)
    tl.store(s_out_ptr + offs, s, mask=mask)


def adagrad_step(param, grad, state_sum, step, lr=0.01, lr_decay=0.0, weight_decay=0.0, eps=1e-10):
    p, g, s = (t.contiguous() for t in (param, grad, state_sum))
    p_out, s_out = torch.empty_like(p), torch.empty_like(s)
    n = p.numel()
    if n == 0:
        return p_out, s_out
    clr = lr / (1 + (step - 1) * lr_decay)
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    _adagrad_kernel[grid](
        p, g, s, p_out, s_out, n, float(clr), float(weight_decay), float(eps),
        WEIGHT_DECAY=weight_decay != 0, BLOCK=BLOCK, num_warps=4,
    )
    return p_out, s_out
