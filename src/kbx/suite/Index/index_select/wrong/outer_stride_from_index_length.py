"""Steps between outer blocks of the input by the index length instead of the selected dim's size.

Output row o * n + j must read input row o * size + index[j]; this kernel reads row o * n + index[j], reusing
the output's row arithmetic for the input. Selecting along dim 0 (one outer block) still works, so it only
shows up for dims with leading dimensions, where n != size.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _gather_kernel(x_ptr, index_ptr, out_ptr, n_rows, n_index, inner,
                   BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    row_mask = rows < n_rows
    o = rows // n_index
    j = rows - o * n_index
    src = tl.load(index_ptr + j, mask=row_mask, other=0)
    src_rows = o.to(tl.int64) * n_index + src
    mask = row_mask[:, None] & (cols < inner)[None, :]
    vals = tl.load(x_ptr + src_rows[:, None] * inner + cols[None, :], mask=mask)
    tl.store(out_ptr + rows.to(tl.int64)[:, None] * inner + cols[None, :], vals, mask=mask)


def index_select(input, dim, index):
    x = input.contiguous()
    dim = dim % x.dim()
    shape = list(x.shape)
    outer, inner = math.prod(shape[:dim]), math.prod(shape[dim + 1:])
    idx = index.contiguous()
    n = idx.numel()
    shape[dim] = n
    out = torch.empty(shape, dtype=x.dtype, device=x.device)
    BLOCK_C = min(triton.next_power_of_2(inner), 1024)
    BLOCK_R = max(1, 4096 // BLOCK_C)
    grid = (triton.cdiv(outer * n, BLOCK_R), triton.cdiv(inner, BLOCK_C))
    _gather_kernel[grid](x, idx, out, outer * n, n, inner, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return out
