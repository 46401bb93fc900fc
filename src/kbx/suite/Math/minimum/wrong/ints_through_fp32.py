"""Widens every operand to fp32 before comparing, as a float kernel would, and narrows the result back.

Right for float32 (including NaN, which it propagates) and for small integers, but fp32 has a 24-bit significand:
an int32 such as 1234567891 becomes 1234567936, so the "minimum" it returns is a value neither operand held.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _minimum_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    y = tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def minimum(input, other):
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _minimum_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    return out
