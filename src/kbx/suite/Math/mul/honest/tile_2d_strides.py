"""An honest mul on a 2-D grid of (rows x columns) tiles, both operands read through their broadcast strides.

Both operands are `expand`ed to the output shape (stride 0 where they broadcast) and seen as up to three dims
(d0, d1, d2); program (i, j) handles a BLOCK_R x BLOCK_C tile of the d0 * d1 rows and d2 columns, splitting each
row into its two coordinates. The product is formed in fp32 and rounded once; a Python-number `other` is an fp32
scalar argument, not rounded to the dtype first. The solution merges dims and launches a flat 1-D grid.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _mul_tiles(a_ptr, b_ptr, out_ptr, b_scalar, n_rows, d1, d2, sa0, sa1, sa2, sb0, sb1, sb2,
               B_SCALAR: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1).to(tl.int64) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows < n_rows)[:, None] & (cols < d2)[None, :]
    i0 = rows // d1
    i1 = rows % d1
    a = tl.load(a_ptr + (i0 * sa0 + i1 * sa1)[:, None] + cols[None, :] * sa2, mask=mask, other=0.0)
    if B_SCALAR:
        y = a.to(tl.float32) * b_scalar
    else:
        b = tl.load(b_ptr + (i0 * sb0 + i1 * sb1)[:, None] + cols[None, :] * sb2, mask=mask, other=0.0)
        y = a.to(tl.float32) * b.to(tl.float32)
    tl.store(out_ptr + rows[:, None] * d2 + cols[None, :], y.to(out_ptr.dtype.element_ty), mask=mask)


def mul(input, other):
    b_scalar = not isinstance(other, torch.Tensor)
    shape = input.shape if b_scalar else torch.broadcast_shapes(input.shape, other.shape)
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    if out.numel() == 0:
        return out
    a = input.expand(shape)
    b = a if b_scalar else other.expand(shape)
    if len(shape) > 3:
        a, b = a.contiguous().view(-1), b.contiguous().view(-1)
    dims = [1] * (3 - a.dim()) + list(a.shape)
    sa = [0] * (3 - a.dim()) + list(a.stride())
    sb = [0] * (3 - b.dim()) + list(b.stride())
    n_rows = dims[0] * dims[1]
    BLOCK_C = min(256, triton.next_power_of_2(dims[2]))
    BLOCK_R = max(1, 2048 // BLOCK_C)
    grid = (triton.cdiv(n_rows, BLOCK_R), triton.cdiv(dims[2], BLOCK_C))
    _mul_tiles[grid](a, b, out, float(other) if b_scalar else 1.0, n_rows, dims[1], dims[2],
                     sa[0], sa[1], sa[2], sb[0], sb[1], sb[2], B_SCALAR=b_scalar, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out
