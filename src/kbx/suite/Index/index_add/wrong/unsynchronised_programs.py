"""Adds each source row with a plain load, add and store, one source row per program.

The kernel writer saw that two rows of one tile may name the same output row (so a tile-wide read-add-write
would lose one of them) and gave every source row a program of its own: within a program no element is written
twice. But programs run at the same time on a GPU: two programs whose index entries are equal both read the old
value, each adds its own contribution and the last store wins, so contributions are lost wherever indices repeat
(every workload repeats some; `check_heavy_dups` sends 300 rows into 5). Only `tl.atomic_add` makes the
read-modify-write indivisible.

GPU only: the CPU interpreter runs the programs one after another, so every read sees the previous program's
store and the result is exact there.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"
DEVICE = "cuda"


@triton.jit
def _index_add_kernel(acc_ptr, index_ptr, src_ptr, n_index, size, inner, alpha, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)  # source row o * n_index + j goes to output row o * size + index[j]
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = cols < inner
    o = row // n_index
    dst_row = o.to(tl.int64) * size + tl.load(index_ptr + (row - o * n_index))
    vals = tl.load(src_ptr + row.to(tl.int64) * inner + cols, mask=mask, other=0.0).to(tl.float32) * alpha
    ptrs = acc_ptr + dst_row * inner + cols
    tl.store(ptrs, tl.load(ptrs, mask=mask, other=0.0) + vals, mask=mask)


def index_add(input, dim, index, source, alpha=1):
    dim = dim % max(input.dim(), 1)
    shape = list(input.shape)
    outer = math.prod(shape[:dim])
    size = shape[dim]
    inner = math.prod(shape[dim + 1:])
    # A fresh contiguous fp32 accumulator holding the input; bf16 is rounded once at the end.
    acc = input.to(dtype=torch.float32, memory_format=torch.contiguous_format, copy=True)
    src = source.contiguous()
    idx = index.contiguous()
    n_rows = outer * idx.numel()
    if n_rows > 0 and inner > 0:
        BLOCK_C = min(triton.next_power_of_2(inner), 1024)
        grid = (n_rows, triton.cdiv(inner, BLOCK_C))
        _index_add_kernel[grid](acc, idx, src, idx.numel(), size, inner, float(alpha), BLOCK_C=BLOCK_C, num_warps=4)
    return acc if input.dtype == torch.float32 else acc.to(input.dtype)
