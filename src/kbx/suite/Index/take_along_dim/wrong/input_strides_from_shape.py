"""Broadcasts correctly but computes input's strides from its shape, as if it were contiguous.

Broadcast dims get stride 0 as they should, but the other strides are the row-major ones of input.shape rather
than input.stride(). For contiguous inputs that is the same thing; for a transposed or strided input (a slice,
a permuted view) the kernel reads the wrong elements.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

MAX_DIMS = 4


@triton.jit
def _take_along_dim_kernel(
    x_ptr, index_ptr, out_ptr, n,
    size1, size2, size3,
    xs0, xs1, xs2, xs3,
    is0, is1, is2, is3,
    DIM: tl.constexpr, BLOCK: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # Flat output position -> coordinates over the (padded) output shape.
    c3 = offs % size3
    rest = offs // size3
    c2 = rest % size2
    rest = rest // size2
    c1 = (rest % size1).to(tl.int64)
    c0 = (rest // size1).to(tl.int64)
    c2 = c2.to(tl.int64)
    c3 = c3.to(tl.int64)
    sel = tl.load(index_ptr + c0 * is0 + c1 * is1 + c2 * is2 + c3 * is3, mask=mask, other=0)
    # The taken dim's coordinate is the index value (DIM is a constexpr: the selects fold away).
    x_off = tl.where(DIM == 0, sel, c0) * xs0
    x_off += tl.where(DIM == 1, sel, c1) * xs1
    x_off += tl.where(DIM == 2, sel, c2) * xs2
    x_off += tl.where(DIM == 3, sel, c3) * xs3
    tl.store(out_ptr + offs, tl.load(x_ptr + x_off, mask=mask), mask=mask)


def take_along_dim(input, indices, dim=None):
    if dim is None:
        # Gather from the flattened input: a 1-D problem over flat positions.
        x = input.contiguous().reshape(-1)
        idx = indices.reshape(-1)
        dim = 0
    else:
        x, idx = input, indices
        assert x.dim() == idx.dim(), "indices must have input's number of dims"
    rank = x.dim()
    assert rank <= MAX_DIMS, "at most 4 dims"
    dim = dim % rank
    # Broadcast every dim but `dim`; along `dim` each keeps its own size.
    out_shape = list(torch.broadcast_shapes(
        tuple(1 if d == dim else s for d, s in enumerate(x.shape)),
        tuple(1 if d == dim else s for d, s in enumerate(idx.shape)),
    ))
    out_shape[dim] = idx.shape[dim]
    xe = x.expand([x.shape[d] if d == dim else s for d, s in enumerate(out_shape)])
    ie = idx.expand(out_shape)
    out = torch.empty(out_shape, dtype=x.dtype, device=x.device)
    n = out.numel()
    if n == 0:
        return out
    assert n < 2**31, "more than 2^31 output elements"
    pad = MAX_DIMS - rank
    shape = [1] * pad + out_shape
    row_major = [1] * rank
    for d in range(rank - 2, -1, -1):
        row_major[d] = row_major[d + 1] * x.shape[d + 1]
    xs = [0] * pad + [0 if x.shape[d] == 1 and d != dim else row_major[d] for d in range(rank)]
    ist = [0] * pad + list(ie.stride())
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    _take_along_dim_kernel[grid](
        xe, ie, out, n, shape[1], shape[2], shape[3], *xs, *ist, DIM=dim + pad, BLOCK=BLOCK, num_warps=4,
    )
    return out
