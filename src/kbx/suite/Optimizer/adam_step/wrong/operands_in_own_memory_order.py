"""Walks param, grad and both moments each in its own memory order, so no dense operand is copied.

An optimizer step is elementwise, so the writer visits the elements in whatever order they lie in memory: every
dense tensor (contiguous, or a permutation of its dims such as a transposed view) is flattened in storage order,
a tensor with gaps (a strided slice) is copied, and the three outputs are allocated with torch.empty_like(param)
(param's layout) and written in param's storage order. In PyTorch the state is usually made with
torch.zeros_like(param) and so shares its layout, which is what the writer relied on. It pairs param[i] with
exp_avg[i] only when the two share a memory layout: a contiguous exp_avg next to a transposed param (or a
transposed exp_avg_sq next to a contiguous param) is read in another order, and each parameter is updated with
another element's moments.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

BLOCK = 1024


@triton.jit
def _adam_kernel(p_ptr, g_ptr, m_ptr, v_ptr, p_out, m_out, v_out, n, lr, beta1, one_minus_beta1, beta2,
                 one_minus_beta2, inv_bc1, inv_bc2, eps, weight_decay, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    g = tl.load(g_ptr + offs, mask=mask, other=0.0)
    m = tl.load(m_ptr + offs, mask=mask, other=0.0)
    v = tl.load(v_ptr + offs, mask=mask, other=0.0)
    g = g + weight_decay * p
    m = beta1 * m + one_minus_beta1 * g
    v = beta2 * v + one_minus_beta2 * (g * g)
    p = p - lr * ((m * inv_bc1) / (tl.sqrt(v * inv_bc2) + eps))
    tl.store(p_out + offs, p, mask=mask)
    tl.store(m_out + offs, m, mask=mask)
    tl.store(v_out + offs, v, mask=mask)


def _flat_in_storage_order(t):
    # Dense: the dims sorted by decreasing stride are contiguous, so a flat view walks memory in order.
    if t.is_contiguous():
        return t.view(-1)
    order = sorted(range(t.dim()), key=lambda d: -t.stride(d))
    q = t.permute(order)
    return q.view(-1) if q.is_contiguous() else None


def _flat(t):
    f = _flat_in_storage_order(t)
    return t.contiguous().view(-1) if f is None else f


def adam_step(param, grad, exp_avg, exp_avg_sq, step, lr=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
              weight_decay=0.0):
    if _flat_in_storage_order(param) is None:
        param = param.contiguous()
    p, g, m, v = _flat(param), _flat(grad), _flat(exp_avg), _flat(exp_avg_sq)
    outs = [torch.empty_like(param) for _ in range(3)]  # param's layout: their storage order is p's
    p_new, m_new, v_new = (_flat(o) for o in outs)
    n = p.numel()
    if n:
        # Scalars in double precision on the host, passed to the kernel as fp32.
        _adam_kernel[(triton.cdiv(n, BLOCK),)](
            p, g, m, v, p_new, m_new, v_new, n, lr, beta1, 1.0 - beta1, beta2, 1.0 - beta2,
            1.0 / (1.0 - beta1**step), 1.0 / (1.0 - beta2**step), eps, weight_decay, BLOCK=BLOCK)
    return tuple(outs)
