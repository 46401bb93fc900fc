"""Selects by arithmetic: out = c * input + (1 - c) * other with c = 1.0 or 0.0, a common branch-free idiom.

Exact for finite floats and small integers, and broadcasting is right (operands are expanded and copied). But the
unselected branch still takes part: 0 * inf and 0 * NaN are NaN, so every position whose unselected value is
infinite or NaN comes out NaN; and int32 values above 2^24 lose their low bits in the fp32 blend.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _where_kernel(c_ptr, a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = tl.load(c_ptr + offs, mask=mask, other=0).to(tl.float32)
    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
    y = c * a + (1.0 - c) * b
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def where(condition, input, other):
    dtype = torch.result_type(input, other)
    if not isinstance(other, torch.Tensor):
        other = torch.full((), other, dtype=dtype, device=input.device)
    shape = torch.broadcast_shapes(condition.shape, input.shape, other.shape)
    c = condition.expand(shape).contiguous()
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=dtype, device=input.device)
    n = out.numel()
    _where_kernel[(triton.cdiv(n, 1024),)](c, a, b, out, n, BLOCK=1024)
    return out
