"""Reads only the first tile (up to 4096 elements) of every slice.

The running maximum never sees the rest of a long slice. With small tied integers a slice's maximum almost always
occurs in its first tile, so only the late-peak workloads (one unique maximum in each slice's last eighth) show it.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

TILE = 4096  # elements per tile: 16 KiB of fp32 in flight per program and loop iteration


@triton.jit
def _argmax_rows_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    row_start = rows.to(tl.int64) * n_cols  # 64-bit: rows * n_cols can pass 2^31
    lane_cols = tl.arange(0, BLOCK_N)

    best = tl.full([BLOCK_M, BLOCK_N], float("-inf"), tl.float32)
    best_idx = tl.zeros([BLOCK_M, BLOCK_N], tl.int32)
    for start in range(0, BLOCK_N, BLOCK_N):  # BUG: the first tile of each row only
        cols = start + lane_cols
        mask = row_mask[:, None] & (cols < n_cols)[None, :]
        v = tl.load(x_ptr + row_start[:, None] + cols[None, :], mask=mask, other=float("-inf"))
        v = v.to(tl.float32)
        # Strict '>': a later equal value in the same lane never replaces the earlier one.
        take = v > best
        best = tl.where(take, v, best)
        best_idx = tl.where(take, cols[None, :], best_idx)

    # Merge the lanes: the row maximum, then the smallest index among lanes that hold it.
    row_max = tl.max(best, axis=1)
    idx = tl.min(tl.where(best == row_max[:, None], best_idx, n_cols), axis=1)
    tl.store(out_ptr + rows, idx.to(tl.int64), mask=row_mask)


@triton.jit
def _argmax_cols_kernel(x_ptr, out_ptr, n_red, n_inner, BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    # A flat 1-D grid over (outer, column block): neither count is bounded by the 65535 limit of grid axis 1.
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_inner, BLOCK_I)
    outer = (pid // n_col_blocks).to(tl.int64)
    cols = (pid % n_col_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = cols < n_inner
    base = x_ptr + outer * n_red * n_inner + cols  # pointers to row 0 of this program's columns
    lane_rows = tl.arange(0, BLOCK_R)

    best = tl.full([BLOCK_R, BLOCK_I], float("-inf"), tl.float32)
    best_idx = tl.zeros([BLOCK_R, BLOCK_I], tl.int32)
    for start in range(0, BLOCK_R, BLOCK_R):  # BUG: the first tile of each column only
        r = start + lane_rows
        mask = (r < n_red)[:, None] & col_mask[None, :]
        v = tl.load(base[None, :] + r.to(tl.int64)[:, None] * n_inner, mask=mask, other=float("-inf"))
        v = v.to(tl.float32)
        take = v > best  # strict: keeps the first occurrence within each lane
        best = tl.where(take, v, best)
        best_idx = tl.where(take, r[:, None], best_idx)

    col_max = tl.max(best, axis=0)
    idx = tl.min(tl.where(best == col_max[None, :], best_idx, n_red), axis=0)
    tl.store(out_ptr + outer * n_inner + cols, idx.to(tl.int64), mask=col_mask)


def argmax(input, dim, keepdim=False):
    x = input.contiguous()
    shape = list(x.shape) if x.dim() > 0 else [1]
    d = dim % len(shape)
    n_red = shape[d]
    outer = math.prod(shape[:d])
    inner = math.prod(shape[d + 1 :])
    out = torch.empty(outer * inner, dtype=torch.int64, device=x.device)

    if inner == 1:
        # Reduce contiguous rows; short rows share a program so that every tile has ~TILE elements.
        BLOCK_N = min(triton.next_power_of_2(n_red), TILE)
        BLOCK_M = min(TILE // BLOCK_N, triton.next_power_of_2(outer))
        grid = (triton.cdiv(outer, BLOCK_M),)
        _argmax_rows_kernel[grid](x, out, outer, n_red, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=8)
    else:
        # Reduce down strided columns: 32 adjacent columns (128 B of fp32) per tile row keep loads coalesced
        # while leaving enough programs to fill the GPU when `inner` is only a few thousand.
        BLOCK_I = min(triton.next_power_of_2(inner), 32)
        BLOCK_R = min(TILE // BLOCK_I, triton.next_power_of_2(n_red))
        grid = (outer * triton.cdiv(inner, BLOCK_I),)
        _argmax_cols_kernel[grid](x, out, n_red, inner, BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, num_warps=8)

    if input.dim() == 0:
        return out.view(())
    out_shape = shape[:d] + ([1] if keepdim else []) + shape[d + 1 :]
    return out.view(out_shape)
