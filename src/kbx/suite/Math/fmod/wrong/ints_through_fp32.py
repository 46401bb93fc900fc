"""Computes every dtype in fp32: int32 operands are converted, the (exact) float fmod taken, the result converted
back.

Right for the float dtype and for small integers. But fp32 holds integers exactly only up to 2^24: int32 operands
near 2^31 are rounded before the remainder is taken, so the result is off by up to a few hundred, or lands
outside [0, |other|) altogether.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _fmod_kernel(a_ptr, b_ptr, out_ptr, n, IS_INT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    a = a.to(tl.float32)
    b = b.to(tl.float32)
    q = tl.div_rn(a, b)
    t = tl.where(q < 0, tl.ceil(q), tl.floor(q))
    r = tl.fma(-t, b, a)
    r = tl.where((r != 0) & ((r < 0) != (a < 0)), r + tl.where(a < 0, -tl.abs(b), tl.abs(b)), r)
    tl.store(out_ptr + offs, r.to(out_ptr.dtype.element_ty), mask=mask)


def fmod(input, other):
    if not isinstance(other, torch.Tensor):
        other = torch.full((), other, dtype=input.dtype, device=input.device)
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _fmod_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, IS_INT=not out.dtype.is_floating_point, BLOCK=1024)
    return out
