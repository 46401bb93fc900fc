"""Divides by multiplying with the reciprocal, a / b = a * (1 / b), then rounds as asked.

A common speed trick, and harmless for true division (one extra rounding, well inside the fp32 tolerance). It
breaks 'floor' (and 'trunc') where the quotient is an exact integer: 1 / 0.875 and 1 / 0.9375 are not
representable, so a quotient of exactly -24 can come out as -24.000002 and floor to -25.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _div_kernel(a_ptr, b_ptr, out_ptr, n, C, sa_r, sa_c, sb_r, sb_c, ROUNDING: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    r, c = offs // C, offs % C
    a = tl.load(a_ptr + r * sa_r + c * sa_c, mask=mask, other=1.0).to(tl.float32)
    b = tl.load(b_ptr + r * sb_r + c * sb_c, mask=mask, other=1.0).to(tl.float32)
    q = a * tl.div_rn(1.0, b)
    if ROUNDING == 1:
        q = tl.where(q < 0, tl.ceil(q), tl.floor(q))
    if ROUNDING == 2:
        q = tl.floor(q)
    tl.store(out_ptr + offs, q.to(out_ptr.dtype.element_ty), mask=mask)


def div(input, other, rounding_mode=None):
    if not isinstance(other, torch.Tensor):
        other = torch.full((), other, dtype=torch.float32, device=input.device)
    shape = torch.broadcast_shapes(input.shape, other.shape)
    C = shape[-1] if len(shape) else 1
    a = input.expand(shape).reshape(-1, C)
    b = other.expand(shape).reshape(-1, C)
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    mode = {None: 0, "trunc": 1, "floor": 2}[rounding_mode]
    _div_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, C, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                         ROUNDING=mode, BLOCK=1024)
    return out
