"""index_add in Triton: copy the input into an fp32 accumulator, then atomically add scaled source rows.

With `dim` normalised, input and output are (outer, size, inner) arrays and source an (outer, n, inner) array:
source row o * n + j is added to output row o * size + index[j]. Two steps:

1. acc = input as a contiguous fp32 tensor (the output itself for fp32 inputs; for bf16 an fp32 scratch copy,
   rounded to bf16 once at the end, so every sum is accumulated in fp32).
2. Each program adds a BLOCK_R x BLOCK_C tile of source (BLOCK_R source rows, each loading its index entry
   once, by BLOCK_C consecutive elements) with `tl.atomic_add`. Duplicate indices are the point of the op
   (gradients of embeddings, histogram-like scatters): several programs, or several rows of one tile, may
   target the same output row, and only atomic read-modify-writes keep every contribution. fp32 atomics are
   resolved in L2 at full throughput when addresses do not collide; contention only matters for heavy duplicates.
   BLOCK_C covers rows up to 1024 elements and BLOCK_R grows as BLOCK_C shrinks (~4096 elements per program).

Memory traffic: the input copy (read + write), one read of source, and one atomic RMW per source element (in
L2). The fp32 embedding-gradient bench moves ~0.5 GiB x 2 for the copy plus 1 GiB of source and 1 GiB of
atomics: ~3 GiB, about 1.5-2 ms on an H100. Offsets are int64 (the bench tensors reach 2^28 elements).
"""

import math

import torch
import triton
import triton.language as tl


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
    # Atomic: other rows of this tile or other programs may add into the same output element.
    tl.atomic_add(acc_ptr + dst_rows[:, None] * inner + cols[None, :], vals, mask=mask)


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
