"""Passes the input straight to the kernel and indexes it as if it were contiguous.

Shapes and row arithmetic are right, but a transposed or strided input is not laid out row-major in memory,
so the kernel copies the wrong elements (or the padding between them) for non-contiguous inputs.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _gather_kernel(x_ptr, index_ptr, out_ptr, n_rows, n_index, size, inner,
                   BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    row_mask = rows < n_rows
    o = rows // n_index
    j = rows - o * n_index
    src = tl.load(index_ptr + j, mask=row_mask, other=0)
    src_rows = o.to(tl.int64) * size + src
    mask = row_mask[:, None] & (cols < inner)[None, :]
    vals = tl.load(x_ptr + src_rows[:, None] * inner + cols[None, :], mask=mask)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * inner + cols[None, :], vals, mask=mask)


def index_select(input, dim, index):
    dim = dim % input.dim()
    shape = list(input.shape)
    outer, size, inner = math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1:])
    idx = index.contiguous()
    n = idx.numel()
    shape[dim] = n
    out = torch.empty(shape, dtype=input.dtype, device=input.device)
    BLOCK_C = min(triton.next_power_of_2(inner), 1024)
    BLOCK_R = max(1, 4096 // BLOCK_C)
    grid = (triton.cdiv(outer * n, BLOCK_R), triton.cdiv(inner, BLOCK_C))
    _gather_kernel[grid](input, idx, out, outer * n, n, size, inner, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out
