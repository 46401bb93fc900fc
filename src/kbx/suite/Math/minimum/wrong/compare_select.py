"""Computes the minimum as `where(a < b, a, b)`: right for numbers, wrong for NaN in `input`.

A comparison with NaN is false, so a NaN in `input` selects `other` and disappears (a NaN in `other` happens to
survive). Broadcasting, strides and int32 are all handled correctly; torch.minimum returns NaN wherever either
operand is NaN.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _minimum_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(a < b, a, b), mask=mask)


def minimum(input, other):
    shape = torch.broadcast_shapes(input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _minimum_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
    return out
