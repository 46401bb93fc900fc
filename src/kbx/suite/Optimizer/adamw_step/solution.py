"""adamw_step in Triton: the whole AdamW update fused into one elementwise pass.

Eager PyTorch runs the update as a dozen elementwise kernels (decay, two moment updates, two bias corrections,
sqrt, add eps, divide, scale, subtract), each streaming full-size fp32 tensors through HBM. Here each program
loads BLOCK elements of param, grad, exp_avg and exp_avg_sq once, does the arithmetic in registers and writes
the new param and moments once, into fresh tensors (the inputs are never written). The decay factor
1 - lr * weight_decay, the bias corrections 1 - beta**step and 1 - beta are per-step scalars, computed once on
the host in double precision (1 - beta computed in the kernel from beta rounded to fp32 is off by 1.3e-5 of
itself for beta2 = 0.999; see adam_step's solution).

Memory traffic: 4 reads + 3 writes of fp32 per element (28 bytes). On an H100 (~3 TB/s) the 201M-element bench
moves 5.6 GB: about 1.9 ms, against roughly 8-10 ms for the unfused eager sequence. Non-contiguous inputs are
made contiguous first (one extra copy each); outputs are contiguous with the param's shape. Offsets are int64
so the same kernel serves flat parameters beyond 2^31 elements.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _adamw_kernel(
    p_ptr, g_ptr, m_ptr, v_ptr, p_out_ptr, m_out_ptr, v_out_ptr, n,
    lr, beta1, beta2, one_minus_beta1, one_minus_beta2, eps, decay, bias_correction1, bias_correction2,
    BLOCK: tl.constexpr,
):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    m = tl.load(m_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)
    # Decoupled weight decay: shrink the parameter; the gradient and the moments never see it.
    p = p * decay
    m = beta1 * m + one_minus_beta1 * g
    v = beta2 * v + one_minus_beta2 * g * g
    m_hat = m / bias_correction1
    v_hat = v / bias_correction2
    p = p - lr * (m_hat / (tl.sqrt(v_hat) + eps))
    tl.store(p_out_ptr + offs, p, mask=mask)
    tl.store(m_out_ptr + offs, m, mask=mask)
    tl.store(v_out_ptr + offs, v, mask=mask)


def adamw_step(param, grad, exp_avg, exp_avg_sq, step, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
               weight_decay=0.01):
    p, g, m, v = (t.contiguous() for t in (param, grad, exp_avg, exp_avg_sq))
    p_out, m_out, v_out = torch.empty_like(p), torch.empty_like(m), torch.empty_like(v)
    n = p.numel()
    if n == 0:
        return p_out, m_out, v_out
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    _adamw_kernel[grid](
        p, g, m, v, p_out, m_out, v_out, n,
        float(lr), float(beta1), float(beta2), 1.0 - beta1, 1.0 - beta2, float(eps), 1.0 - lr * weight_decay,
        1.0 - beta1**step, 1.0 - beta2**step,
        BLOCK=BLOCK, num_warps=4,
    )
    return p_out, m_out, v_out
