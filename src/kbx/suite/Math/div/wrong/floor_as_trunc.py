"""Implements rounding_mode='floor' with the same truncation as 'trunc' (the C idiom for integer division).

Handles broadcasting through strides and computes the quotient with IEEE division, so true division and 'trunc'
are right, and so is 'floor' wherever the quotient is positive or an exact integer. Every negative non-integer
quotient comes out one too high: -7 / 2 gives -3 where floor division gives -4.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _div_kernel(a_ptr, b_ptr, out_ptr, n, C, sa_r, sa_c, sb_r, sb_c, ROUND: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r, c = offs // C, offs % C
    a = tl.load(a_ptr + r * sa_r + c * sa_c, mask=mask, other=1.0).to(tl.float32)
    b = tl.load(b_ptr + r * sb_r + c * sb_c, mask=mask, other=1.0).to(tl.float32)
    q = tl.div_rn(a, b)
    if ROUND:
        q = tl.where(q < 0, tl.ceil(q), tl.floor(q))
    tl.store(out_ptr + offs, q.to(out_ptr.dtype.element_ty), mask=mask)


def div(input, other, rounding_mode=None):
    if not isinstance(other, torch.Tensor):
        other = torch.full((), other, dtype=torch.float32, device=input.device)
    shape = torch.broadcast_shapes(input.shape, other.shape)
    C = shape[-1] if len(shape) else 1
    # Two dims are enough once the leading ones are flattened (reshape copies only where it must).
    a = input.expand(shape).reshape(-1, C)
    b = other.expand(shape).reshape(-1, C)
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _div_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, C, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                         ROUND=rounding_mode is not None, BLOCK=1024)
    return out
