"""An honest minimum with explicit NaN selects, in the input dtype, reading broadcast operands through strides.

The result is a where a < b or a is NaN, else b; so a NaN in a is kept and a NaN in b wins every comparison it loses
(a < NaN is false). int32 is compared as int32 (never through fp32, which cannot hold every value past 2^24). Both
operands are `expand`ed to the output shape (stride 0 where they broadcast) and read on a (row, column-block) grid
over up to three dims. The solution merges dims into a flat grid.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _minimum_rows(a_ptr, b_ptr, out_ptr, d1, d2, sa0, sa1, sa2, sb0, sb1, sb2, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = (tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)).to(tl.int64)
    mask = cols < d2
    i0 = row // d1
    i1 = row % d1
    a = tl.load(a_ptr + i0 * sa0 + i1 * sa1 + cols * sa2, mask=mask, other=0)
    b = tl.load(b_ptr + i0 * sb0 + i1 * sb1 + cols * sb2, mask=mask, other=0)
    y = tl.where((a < b) | (a != a), a, b)
    tl.store(out_ptr + row * d2 + cols, y, mask=mask)


def minimum(input, other):
    shape = torch.broadcast_shapes(input.shape, other.shape)
    out = torch.empty(shape, dtype=torch.result_type(input, other), device=input.device)
    if out.numel() == 0:
        return out
    a, b = input.expand(shape), other.expand(shape)
    if len(shape) > 3:
        a, b = a.contiguous().view(-1), b.contiguous().view(-1)
    dims = [1] * (3 - a.dim()) + list(a.shape)
    sa = [0] * (3 - a.dim()) + list(a.stride())
    sb = [0] * (3 - b.dim()) + list(b.stride())
    BLOCK = 1024
    grid = (dims[0] * dims[1], triton.cdiv(dims[2], BLOCK))
    _minimum_rows[grid](a, b, out, dims[1], dims[2], sa[0], sa[1], sa[2], sb[0], sb[1], sb[2], BLOCK=BLOCK)
    return out
