"""PReLU in Triton: one streaming pass over memory, the per-channel weight gathered from a tiny cached vector.

The input (made contiguous) is viewed as a matrix of R = N * C rows (one per (sample, channel) pair) and
I = prod(shape[2:]) columns, so the channel of every element of a row is row % C: one weight per row, loaded
once per tile row and broadcast along it. A shared weight is the case C = 1. When the input is 2-D (N, C), I is 1
and each tile is a single column of 4096 consecutive elements whose channels are consecutive: the weight reads
are a gather from a C-element vector that stays in L1/L2.

Tiling: tiles of [BLOCK_R rows, BLOCK_I columns] with BLOCK_I = the next power of two of I capped at 1024 and
BLOCK_R filling the tile up to 4096 elements, on a flat grid over (row blocks x column blocks). The channel is
computed in int32 (R < 2^31), element offsets in int64.

Memory traffic: each element is read once and written once (8 bytes per element in fp32, 4 in bf16), plus the
weight, which is negligible. A non-contiguous input costs one extra copy. On an H100 (~3 TB/s) the
96 x 256 x 128 x 256 fp32 bench (6.4 GB of traffic) should take about 2.1 ms, bf16 about 1.1 ms.
"""

import math

import torch
import triton
import triton.language as tl

TILE = 4096


@triton.jit
def _prelu_kernel(x_ptr, w_ptr, y_ptr, n_rows, n_cols, n_channels,
                  BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_cols, BLOCK_I)
    rows = (pid // n_col_blocks) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = (pid % n_col_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    row_mask = rows < n_rows
    mask = row_mask[:, None] & (cols[None, :] < n_cols)
    # One weight per row: rows are (sample, channel) pairs, so the channel is row % C.
    w = tl.load(w_ptr + rows % n_channels, mask=row_mask).to(tl.float32)
    offsets = rows.to(tl.int64)[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.where(x > 0, x, w[:, None] * x)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def prelu(input, weight):
    x = input.contiguous()
    w = weight.contiguous()
    out = torch.empty_like(x)
    if x.numel() == 0:
        return out
    n_channels = w.numel()
    if x.dim() >= 2:
        if n_channels not in (1, x.shape[1]):
            raise ValueError(f"prelu: weight has {n_channels} elements, input has {x.shape[1]} channels")
        n_rows, n_cols = x.shape[0] * x.shape[1], math.prod(x.shape[2:])
    else:  # no channel dimension: a single shared weight
        n_rows, n_cols = 1, x.numel()
    BLOCK_I = min(triton.next_power_of_2(n_cols), 1024)
    BLOCK_R = min(TILE // BLOCK_I, triton.next_power_of_2(n_rows))
    grid = (triton.cdiv(n_rows, BLOCK_R) * triton.cdiv(n_cols, BLOCK_I),)
    _prelu_kernel[grid](x, w, out, n_rows, n_cols, n_channels, BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, num_warps=8)
    return out
