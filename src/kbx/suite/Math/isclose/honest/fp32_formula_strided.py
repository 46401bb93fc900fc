"""An honest isclose from the statement's formula, in fp32, reading broadcast operands through their strides.

For each element: equal (which covers equal infinities), or |a - b| finite and at most atol + rtol * |b|, or, with
equal_nan, both NaN. bf16 inputs are widened to fp32 (lossless) and the test is done there rather than with bf16
roundings of each step. Both operands are `expand`ed to the output shape (stride 0 where they broadcast) and read
on a (row, column-block) grid over up to three dims; the bool result is stored directly. The solution merges dims
into one flat grid.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _isclose_rows(a_ptr, b_ptr, out_ptr, rtol, atol, d1, d2, sa0, sa1, sa2, sb0, sb1, sb2,
                  EQUAL_NAN: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = (tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)).to(tl.int64)
    mask = cols < d2
    i0 = row // d1
    i1 = row % d1
    a = tl.load(a_ptr + i0 * sa0 + i1 * sa1 + cols * sa2, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + i0 * sb0 + i1 * sb1 + cols * sb2, mask=mask, other=0.0).to(tl.float32)
    diff = tl.abs(a - b)
    finite = (diff == diff) & (diff != float("inf"))
    close = (a == b) | (finite & (diff <= atol + rtol * tl.abs(b)))
    if EQUAL_NAN:
        close = close | ((a != a) & (b != b))
    tl.store(out_ptr + row * d2 + cols, close, mask=mask)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    shape = torch.broadcast_shapes(input.shape, other.shape)
    out = torch.empty(shape, dtype=torch.bool, device=input.device)
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
    _isclose_rows[grid](a, b, out, float(rtol), float(atol), dims[1], dims[2], sa[0], sa[1], sa[2],
                        sb[0], sb[1], sb[2], EQUAL_NAN=bool(equal_nan), BLOCK=BLOCK)
    return out
