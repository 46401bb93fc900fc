"""Never normalises a negative `dim`, so dim=-1 or dim=-2 gathers along the wrong dimension (or none).

The shapes are padded to four dims and the gathered dim shifted by the padding, DIM = dim + pad, which is right
for dim >= 0. For dim = -1 on a 2-D input DIM lands on a padding dim (size 1, stride 0), so the index value is
ignored and the kernel copies input[i, j] instead of input[i, index[i, j]]; for dim = -2 on a 3-D input no dim
matches at all. Non-negative dims work, so only the negative-dim workloads expose it.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

MAX_DIMS = 4


@triton.jit
def _gather_kernel(
    x_ptr, index_ptr, out_ptr, n, n_x,
    size1, size2, size3,            # index shape (dim 0's size is implied by n)
    xs0, xs1, xs2, xs3,             # input strides (elements)
    is0, is1, is2, is3,             # index strides (elements)
    DIM: tl.constexpr, BLOCK: tl.constexpr,
):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    # Flat output position -> coordinates over the index shape (row-major).
    c3 = offs % size3
    rest = offs // size3
    c2 = rest % size2
    rest = rest // size2
    c1 = rest % size1
    c0 = rest // size1
    idx_off = c0.to(tl.int64) * is0 + c1.to(tl.int64) * is1 + c2.to(tl.int64) * is2 + c3.to(tl.int64) * is3
    sel = tl.load(index_ptr + idx_off, mask=mask, other=0)
    # Replace the gathered dimension's coordinate by the index value (DIM is a constexpr: no runtime branch).
    x_off = tl.where(DIM == 0, sel, c0.to(tl.int64)) * xs0
    x_off += tl.where(DIM == 1, sel, c1.to(tl.int64)) * xs1
    x_off += tl.where(DIM == 2, sel, c2.to(tl.int64)) * xs2
    x_off += tl.where(DIM == 3, sel, c3.to(tl.int64)) * xs3
    # Guarded against reading outside the input's storage.
    vals = tl.load(x_ptr + x_off, mask=mask & (x_off >= 0) & (x_off < n_x), other=0.0)
    tl.store(out_ptr + offs, vals, mask=mask)


def gather(input, dim, index):
    rank = input.dim()
    assert index.dim() == rank and rank <= MAX_DIMS, "index must have input's number of dims (at most 4)"
    out = torch.empty(index.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    if n == 0:
        return out
    assert n < 2**31, "more than 2^31 output elements"
    pad = MAX_DIMS - rank
    # Leading padded dims have size 1 and stride 0; the gathered dim moves by the same padding.
    shape = [1] * pad + list(index.shape)
    xs = [0] * pad + list(input.stride())
    ist = [0] * pad + list(index.stride())
    n_x = input.untyped_storage().nbytes() // input.element_size() - input.storage_offset()
    BLOCK = 1024
    grid = (triton.cdiv(n, BLOCK),)
    _gather_kernel[grid](
        input, index, out, n, n_x, shape[1], shape[2], shape[3], *xs, *ist,
        DIM=dim + pad, BLOCK=BLOCK, num_warps=4,
    )
    return out
