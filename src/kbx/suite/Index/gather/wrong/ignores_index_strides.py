"""Reads the index as if it were contiguous.

The input's strides are honoured, but the index is addressed by the output's flat position. For a strided
(non-contiguous) index view that position lands on other index entries (or on the gaps between them), so
most outputs copy the wrong element.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"
MAX_DIMS = 4


@triton.jit
def _gather_kernel(
    x_ptr, index_ptr, out_ptr, n,
    size1, size2, size3,            # index shape (dim 0's size is implied by n)
    xs0, xs1, xs2, xs3,             # input strides (elements)
    is0, is1, is2, is3,             # index strides (elements)
    DIM: tl.constexpr, BLOCK: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c3 = offs % size3
    rest = offs // size3
    c2 = rest % size2
    rest = rest // size2
    c1 = rest % size1
    c0 = rest // size1
    sel = tl.load(index_ptr + offs, mask=mask, other=0)
    x_off = tl.where(DIM == 0, sel, c0.to(tl.int64)) * xs0
    x_off += tl.where(DIM == 1, sel, c1.to(tl.int64)) * xs1
    x_off += tl.where(DIM == 2, sel, c2.to(tl.int64)) * xs2
    x_off += tl.where(DIM == 3, sel, c3.to(tl.int64)) * xs3
    vals = tl.load(x_ptr + x_off, mask=mask)
    tl.store(out_ptr + offs, vals, mask=mask)


def gather(input, dim, index):
    rank = input.dim()
    assert index.dim() == rank and rank <= MAX_DIMS, "index must have input's number of dims (at most 4)"
    dim = dim % max(rank, 1)
    out = torch.empty(index.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    assert n < 2**31, "more than 2^31 output elements"
    pad = MAX_DIMS - rank
    shape = [1] * pad + list(index.shape)
    xs = [0] * pad + list(input.stride())
    ist = [0] * pad + list(index.stride())
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    _gather_kernel[grid](
        input, index, out, n, shape[1], shape[2], shape[3], *xs, *ist,
        DIM=dim + pad, BLOCK=BLOCK, num_warps=4,
    )
    return out
