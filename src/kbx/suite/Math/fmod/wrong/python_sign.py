"""Returns the remainder with the sign of the divisor (Python's %), i.e. torch.remainder, for torch.fmod.

The fmod step is exact, but a non-zero result whose sign differs from the divisor's is then shifted by the
divisor, as Python and torch.remainder do. fmod keeps the dividend's sign: fmod(-7, 3) is -1, this returns 2.
Every workload has operands of both signs, so about half of the non-zero results are wrong.
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
    if IS_INT:
        r = a % b
    else:
        a = a.to(tl.float32)
        b = b.to(tl.float32)
        q = tl.div_rn(a, b)
        t = tl.where(q < 0, tl.ceil(q), tl.floor(q))
        r = tl.fma(-t, b, a)
        r = tl.where((r != 0) & ((r < 0) != (a < 0)), r + tl.where(a < 0, -tl.abs(b), tl.abs(b)), r)
    r = tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)
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
