"""Softmax along one dimension in Triton: single pass when a slice fits on chip, online softmax otherwise.

The input is viewed as (outer, R, inner), where R is the softmax dimension; math is in fp32.

* inner == 1 (softmax over the last, contiguous dimension): `_softmax_rows_kernel`, tiles of
  [BLOCK_M rows, BLOCK_N columns], every load a contiguous run.
* inner > 1 (a leading or middle dimension): `_softmax_cols_kernel`, tiles of [BLOCK_R, BLOCK_I] that walk
  down R for BLOCK_I adjacent (contiguous) columns, so loads stay coalesced without transposing the tensor.

When a whole slice fits in one tile (R <= 16384 elements in a row), the kernel loads it once, takes the max,
exponentiates, sums and writes: one read and one write per element (8 B/elem in fp32, 4 in bf16).
Longer slices use the two-pass "online softmax": pass 1 streams the slice keeping a running max m and a
running sum s of exp(x - m), rescaling s by exp(m_old - m_new) whenever the max grows; pass 2 re-reads the
slice and writes exp(x - m) / s. That is two reads and one write. A tile that is entirely -inf leaves m at
-inf; the rescale then uses 0 in place of m so that no -inf - (-inf) = NaN is ever formed.

Softmax is memory-bound: on an H100 (~3 TB/s) the 32768 x 16384 fp32 bench (4 GiB read + written) should
take about 1.5 ms, the 4096 x 131072 long-row bench (two reads) about 2.2 ms, half that in bf16.
"""

import math

import torch
import triton
import triton.language as tl

MAX_ONE_TILE = 16384  # the largest slice kept in registers (64 KiB of fp32 per program, 16 warps)
TILE = 4096  # elements per tile when streaming or when packing many short rows in one program


@triton.jit
def _softmax_rows_kernel(x_ptr, y_ptr, n_rows, n_cols,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ONE_TILE: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    row_start = rows.to(tl.int64)[:, None] * n_cols  # 64-bit: rows * n_cols can pass 2^31
    lane_cols = tl.arange(0, BLOCK_N)[None, :]

    if ONE_TILE:
        # The whole row is in registers: read once, write once.
        mask = row_mask[:, None] & (lane_cols < n_cols)
        x = tl.load(x_ptr + row_start + lane_cols, mask=mask, other=float("-inf")).to(tl.float32)
        m = tl.max(x, axis=1)
        p = tl.exp(x - m[:, None])
        s = tl.sum(p, axis=1)
        tl.store(y_ptr + row_start + lane_cols, (p / s[:, None]).to(y_ptr.dtype.element_ty), mask=mask)
    else:
        # Pass 1: running max and running sum of exp(x - max).
        m = tl.full([BLOCK_M], float("-inf"), tl.float32)
        s = tl.zeros([BLOCK_M], tl.float32)
        for start in range(0, n_cols, BLOCK_N):
            cols = start + lane_cols
            mask = row_mask[:, None] & (cols < n_cols)
            x = tl.load(x_ptr + row_start + cols, mask=mask, other=float("-inf")).to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, axis=1))
            m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # all -inf so far: avoid -inf - -inf
            s = s * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[:, None]), axis=1)
            m = m_new
        # Pass 2: normalize and write.
        inv_s = 1.0 / s
        for start in range(0, n_cols, BLOCK_N):
            cols = start + lane_cols
            mask = row_mask[:, None] & (cols < n_cols)
            x = tl.load(x_ptr + row_start + cols, mask=mask, other=float("-inf")).to(tl.float32)
            y = tl.exp(x - m[:, None]) * inv_s[:, None]
            tl.store(y_ptr + row_start + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _softmax_cols_kernel(x_ptr, y_ptr, n_red, n_inner,
                         BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr, ONE_TILE: tl.constexpr):
    # A flat 1-D grid over (outer, column block): neither count is bounded by the 65535 limit of grid axis 1.
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_inner, BLOCK_I)
    outer = (pid // n_col_blocks).to(tl.int64)
    cols = (pid % n_col_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = cols[None, :] < n_inner
    base = outer * n_red * n_inner + cols[None, :]  # offsets of row 0 of this program's columns
    lane_rows = tl.arange(0, BLOCK_R)[:, None]

    if ONE_TILE:
        offs = base + lane_rows.to(tl.int64) * n_inner
        mask = (lane_rows < n_red) & col_mask
        x = tl.load(x_ptr + offs, mask=mask, other=float("-inf")).to(tl.float32)
        m = tl.max(x, axis=0)
        p = tl.exp(x - m[None, :])
        s = tl.sum(p, axis=0)
        tl.store(y_ptr + offs, (p / s[None, :]).to(y_ptr.dtype.element_ty), mask=mask)
    else:
        m = tl.full([BLOCK_I], float("-inf"), tl.float32)
        s = tl.zeros([BLOCK_I], tl.float32)
        for start in range(0, n_red, BLOCK_R):
            r = start + lane_rows
            mask = (r < n_red) & col_mask
            x = tl.load(x_ptr + base + r.to(tl.int64) * n_inner, mask=mask, other=float("-inf"))
            x = x.to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, axis=0))
            m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
            s = s * tl.exp(m - m_safe) + tl.sum(tl.exp(x - m_safe[None, :]), axis=0)
            m = m_new
        inv_s = 1.0 / s
        for start in range(0, n_red, BLOCK_R):
            r = start + lane_rows
            mask = (r < n_red) & col_mask
            offs = base + r.to(tl.int64) * n_inner
            x = tl.load(x_ptr + offs, mask=mask, other=float("-inf")).to(tl.float32)
            y = tl.exp(x - m[None, :]) * inv_s[None, :]
            tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def _num_warps(tile):
    return 4 if tile <= 2048 else 8 if tile <= 4096 else 16


def softmax(input, dim):
    x = input.contiguous()
    out = torch.empty_like(x)
    if x.numel() == 0:
        return out
    shape = list(x.shape) if x.dim() > 0 else [1]
    d = dim % len(shape)
    n_red = shape[d]
    outer = math.prod(shape[:d])
    inner = math.prod(shape[d + 1 :])
    width = triton.next_power_of_2(n_red)

    if inner == 1:
        if width <= MAX_ONE_TILE:
            # Whole rows in one tile; short rows share a program so that each tile has ~TILE elements.
            BLOCK_N, one_tile = width, True
            BLOCK_M = min(max(TILE // BLOCK_N, 1), triton.next_power_of_2(outer))
        else:
            BLOCK_M, BLOCK_N, one_tile = 1, TILE, False
        grid = (triton.cdiv(outer, BLOCK_M),)
        _softmax_rows_kernel[grid](x, out, outer, n_red, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                   ONE_TILE=one_tile, num_warps=_num_warps(BLOCK_M * BLOCK_N))
    else:
        # 32 adjacent columns (128 B of fp32) per tile row: coalesced, and many programs when inner is large.
        BLOCK_I = min(triton.next_power_of_2(inner), 32)
        one_tile = width * BLOCK_I <= MAX_ONE_TILE
        BLOCK_R = width if one_tile else TILE // BLOCK_I
        grid = (outer * triton.cdiv(inner, BLOCK_I),)
        _softmax_cols_kernel[grid](x, out, n_red, inner, BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I,
                                   ONE_TILE=one_tile, num_warps=_num_warps(BLOCK_R * BLOCK_I))
    return out
