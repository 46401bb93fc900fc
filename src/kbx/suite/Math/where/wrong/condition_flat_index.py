"""Broadcasts the branches by strides but reads the condition by flat index, as if it always had the output shape.

The branches `input` and `other` are expanded and copied correctly. The condition is passed as is: when it has
the output shape and is contiguous this is right, but a row, column or outer-broadcast condition is read from the
wrong places (and counts as False past its own length), and a transposed or strided condition is read in the
wrong order.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _where_kernel(c_ptr, a_ptr, b_ptr, out_ptr, n, n_c, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    cond = tl.load(c_ptr + offs, mask=mask & (offs < n_c), other=0) != 0
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(cond, a, b), mask=mask)


def where(condition, input, other):
    dtype = torch.result_type(input, other)
    if not isinstance(other, torch.Tensor):
        other = torch.full((), other, dtype=dtype, device=input.device)
    shape = torch.broadcast_shapes(condition.shape, input.shape, other.shape)
    a = input.expand(shape).contiguous()
    b = other.expand(shape).contiguous()
    out = torch.empty(shape, dtype=dtype, device=input.device)
    n = out.numel()
    _where_kernel[(triton.cdiv(n, 1024),)](condition, a, b, out, n, condition.numel(), BLOCK=1024)
    return out
