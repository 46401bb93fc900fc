"""Assumes the components are the last dim (array-of-structs) whatever `dim` says: broadcasting and strides are
handled by contiguous copies, but with dim=0 or a middle dim it pairs up the wrong elements."""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _cross_kernel(a_ptr, b_ptr, o_ptr, P, BLOCK: tl.constexpr):
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = idx < P
    a0 = tl.load(a_ptr + 3 * idx, mask=mask).to(tl.float32)
    a1 = tl.load(a_ptr + 3 * idx + 1, mask=mask).to(tl.float32)
    a2 = tl.load(a_ptr + 3 * idx + 2, mask=mask).to(tl.float32)
    b0 = tl.load(b_ptr + 3 * idx, mask=mask).to(tl.float32)
    b1 = tl.load(b_ptr + 3 * idx + 1, mask=mask).to(tl.float32)
    b2 = tl.load(b_ptr + 3 * idx + 2, mask=mask).to(tl.float32)
    ty = o_ptr.dtype.element_ty
    tl.store(o_ptr + 3 * idx, (a1 * b2 - a2 * b1).to(ty), mask=mask)
    tl.store(o_ptr + 3 * idx + 1, (a2 * b0 - a0 * b2).to(ty), mask=mask)
    tl.store(o_ptr + 3 * idx + 2, (a0 * b1 - a1 * b0).to(ty), mask=mask)


def cross(input, other, dim=-1):
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    P = out.numel() // 3
    _cross_kernel[(triton.cdiv(P, 1024),)](a, b, out, P, BLOCK=1024)
    return out
