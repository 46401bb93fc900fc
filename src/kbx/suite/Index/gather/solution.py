"""gather in Triton: one program per block of output elements, strides instead of copies.

The output has `index`'s shape and is written contiguously. Each program takes BLOCK consecutive output
elements, splits their flat position into coordinates (c0, c1, c2, c3) over index's shape (padded with leading
1s to four dims), and then:
    index value  = index[c0 * is0 + c1 * is1 + c2 * is2 + c3 * is3]          (index strides)
    input offset = sum over d of (index value if d == dim else c_d) * xs_d    (input strides)
so transposed or strided inputs and indices are read in place, without a contiguous copy. Coordinates stay
in int32 (the output is asserted to hold fewer than 2^31 elements); offsets are int64 because the bench input
has 2^29 elements and strided views can reach further.

Memory traffic: one int64 index read and one element write per output element (both coalesced), plus one
element read from the input. Along the last dim those reads land in the same row, so the 32-byte sectors of
neighbouring threads overlap and traffic stays near the ideal; the last-dim bench moves 2 GiB index + 1 GiB
output + at most 2 GiB input, about 2 ms at ~3 TB/s. Along dim 0 neighbouring threads read different rows, so
every fp32 element costs a 32-byte sector: the dim-0 bench is bound by that scattered traffic (~4 GB,
about 1.5-2 ms).
"""

import torch
import triton
import triton.language as tl

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
    # Leading padded dims have size 1 and stride 0; the gathered dim moves by the same padding.
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
