"""Adds with a plain load, add and store instead of an atomic add.

Correct when every index is distinct. With duplicates, two rows of one tile (or two programs) read the same old
value, each adds its own contribution and the last store wins: all but one contribution to that element are
lost. Duplicates are what index_add is used for (embedding gradients, histogram-like scatters).
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _index_add_kernel(
    acc_ptr, index_ptr, src_ptr, n_rows, n_index, size, inner, alpha,
    BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr,
):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    row_mask = rows < n_rows
    # Source row r = o * n_index + j goes to output row o * size + index[j].
    o = rows // n_index
    j = rows - o * n_index
    dst = tl.load(index_ptr + j, mask=row_mask, other=0)
    dst_rows = o.to(tl.int64) * size + dst
    mask = row_mask[:, None] & (cols < inner)[None, :]
    vals = tl.load(src_ptr + rows.to(tl.int64)[:, None] * inner + cols[None, :], mask=mask, other=0.0)
    vals = vals.to(tl.float32) * alpha
    ptrs = acc_ptr + dst_rows[:, None] * inner + cols[None, :]
    old = tl.load(ptrs, mask=mask, other=0.0)
    tl.store(ptrs, old + vals, mask=mask)


def index_add(input, dim, index, source, alpha=1):
    dim = dim % max(input.dim(), 1)
    shape = list(input.shape)
    outer = math.prod(shape[:dim])
    size = shape[dim]
    inner = math.prod(shape[dim + 1:])
    # A fresh contiguous fp32 accumulator holding the input (never the input itself: it must stay unchanged).
    acc = input.to(dtype=torch.float32, memory_format=torch.contiguous_format, copy=True)
    src = source.contiguous()
    idx = index.contiguous()
    n = idx.numel()
    n_rows = outer * n
    if n_rows > 0 and inner > 0:
        assert n_rows < 2**31, "more than 2^31 source rows"
        BLOCK_C = min(triton.next_power_of_2(inner), 1024)
        BLOCK_R = max(1, 4096 // BLOCK_C)
        grid = (triton.cdiv(n_rows, BLOCK_R), triton.cdiv(inner, BLOCK_C))
        _index_add_kernel[grid](
            acc, idx, src, n_rows, n, size, inner, float(alpha), BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C, num_warps=8,
        )
    return acc if input.dtype == torch.float32 else acc.to(input.dtype)
