"""Puts the rows on the launch grid's second axis, which a GPU limits to 65535.

A split reduction: the reduced dims are moved last, and every row is cut into BLOCK-wide chunks, one program per
(chunk, row) on the grid `(cdiv(n_cols, BLOCK), n_rows)`; each program sums its chunk in fp32 and adds it into an
fp32 accumulator with `tl.atomic_add`, rounded once to the output dtype. Sound arithmetic, and many programs even
for few long rows. But CUDA allows at most 65535 blocks along a grid's y (and z) axis, and `bench_last` has 65536
rows: the launch fails ("invalid argument"), a RUNTIME_ERROR. Rows belong on axis 0 (up to 2^31 - 1 blocks), or
the grid must be folded.

GPU only: the CPU interpreter runs any grid, and no check workload has more than 4097 rows.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "RUNTIME_ERROR"
DEVICE = "cuda"


@triton.jit
def _chunk_sum_kernel(x_ptr, acc_ptr, n_cols, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    row = tl.program_id(1).to(tl.int64)
    chunk = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.atomic_add(acc_ptr + row, tl.sum(chunk, axis=0))


def sum(input, dim, keepdim=False):
    x = input if input.dim() > 0 else input.reshape(1)
    nd = x.dim()
    dims = [dim] if isinstance(dim, int) else list(dim)
    reduced = sorted({d % nd for d in dims}) if dims else list(range(nd))
    kept = [d for d in range(nd) if d not in reduced]
    if keepdim:
        out_shape = [1 if d in reduced else x.shape[d] for d in range(nd)]
    else:
        out_shape = [x.shape[d] for d in kept] if input.dim() > 0 else []
    n_rows = math.prod(x.shape[d] for d in kept)
    n_cols = math.prod(x.shape[d] for d in reduced)
    rows = x.permute(kept + reduced).contiguous().reshape(n_rows, n_cols)
    acc = torch.zeros(n_rows, dtype=torch.float32, device=input.device)
    if n_rows > 0 and n_cols > 0:
        block = min(triton.next_power_of_2(n_cols), 2048)
        _chunk_sum_kernel[(triton.cdiv(n_cols, block), n_rows)](rows, acc, n_cols, BLOCK=block, num_warps=4)
    return acc.to(input.dtype).reshape(out_shape)
