"""Softmin along one dimension in Triton: softmax of -x, one read when a slice fits on chip, online otherwise.

The input is made contiguous (one copy for transposed or strided inputs) and viewed as (outer, R, inner), R
being the reduced dimension; all math is fp32. Each element is negated as it is loaded (z = -x, so +inf inputs
become -inf and padding lanes load +inf), and the kernel computes the softmax of z: m = max z = -min x,
s = sum exp(z - m), y = exp(z - m) / s. Every exponent is <= 0: nothing overflows.

* inner == 1 (the last dimension): `_rows_kernel`. Tiles of [BLOCK_M rows, BLOCK_N columns]; contiguous loads.
* inner > 1 (a leading or middle dimension): `_cols_kernel`. Tiles of [BLOCK_R, BLOCK_I]: BLOCK_I adjacent
  columns (contiguous in memory) walked down R, so loads stay coalesced without a transpose.

A slice of at most 16384 elements is loaded once into registers (one read, one write). Longer slices take two
reads: pass 1 keeps a running max m and a running sum s, rescaling s by exp(m_old - m_new) when the max grows;
a tile that is entirely -inf (all +inf inputs) leaves m at -inf, and the rescale then uses 0 in place of m so
that -inf - (-inf) = NaN never appears. Pass 2 re-reads and writes exp(z - m) / s.

Softmin is memory-bound: on an H100 (~3 TB/s) the 32768 x 16384 fp16 bench (1 GiB read + written) should take
about 0.75 ms, and the 64 x 4096 x 2048 middle-dimension bench the same.
"""

import math

import torch
import triton
import triton.language as tl

MAX_ONE_TILE = 16384  # the longest slice kept in registers (64 KiB of fp32 per program, 16 warps)
TILE = 4096  # elements per tile when streaming, or when packing several short slices in one program


@triton.jit
def _rows_kernel(x_ptr, y_ptr, n_rows, n_cols,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ONE_TILE: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows[:, None] < n_rows
    row_start = rows.to(tl.int64)[:, None] * n_cols  # 64-bit: rows * n_cols passes 2^31 on the benches
    cols0 = tl.arange(0, BLOCK_N)[None, :]

    if ONE_TILE:
        mask = row_ok & (cols0 < n_cols)
        x = -tl.load(x_ptr + row_start + cols0, mask=mask, other=float("inf")).to(tl.float32)
        m = tl.max(x, axis=1)
        e = tl.exp(x - m[:, None])
        y = e / tl.sum(e, axis=1)[:, None]
        tl.store(y_ptr + row_start + cols0, y.to(y_ptr.dtype.element_ty), mask=mask)
    else:
        m = tl.full([BLOCK_M], float("-inf"), tl.float32)
        s = tl.zeros([BLOCK_M], tl.float32)
        for start in range(0, n_cols, BLOCK_N):
            cols = start + cols0
            x = tl.load(x_ptr + row_start + cols, mask=row_ok & (cols < n_cols), other=float("inf"))
            x = -x.to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, axis=1))
            m_ref = tl.where(m_new == float("-inf"), 0.0, m_new)  # all -inf so far: keep exp() away from NaN
            s = s * tl.exp(m - m_ref) + tl.sum(tl.exp(x - m_ref[:, None]), axis=1)
            m = m_new
        inv_s = (1.0 / s)[:, None]
        for start in range(0, n_cols, BLOCK_N):
            cols = start + cols0
            mask = row_ok & (cols < n_cols)
            x = -tl.load(x_ptr + row_start + cols, mask=mask, other=float("inf")).to(tl.float32)
            tl.store(y_ptr + row_start + cols, (tl.exp(x - m[:, None]) * inv_s).to(y_ptr.dtype.element_ty),
                     mask=mask)


@triton.jit
def _cols_kernel(x_ptr, y_ptr, n_red, n_inner,
                 BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr, ONE_TILE: tl.constexpr):
    # A flat grid over (outer index, column block), so neither count meets grid axis 1's 65535 limit.
    pid = tl.program_id(0)
    col_blocks = tl.cdiv(n_inner, BLOCK_I)
    outer = (pid // col_blocks).to(tl.int64)
    cols = (pid % col_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)[None, :]
    col_ok = cols < n_inner
    base = outer * n_red * n_inner + cols  # offsets of reduction index 0 for this program's columns
    r0 = tl.arange(0, BLOCK_R)[:, None]

    if ONE_TILE:
        mask = (r0 < n_red) & col_ok
        offs = base + r0.to(tl.int64) * n_inner
        x = -tl.load(x_ptr + offs, mask=mask, other=float("inf")).to(tl.float32)
        m = tl.max(x, axis=0)
        e = tl.exp(x - m[None, :])
        tl.store(y_ptr + offs, (e / tl.sum(e, axis=0)[None, :]).to(y_ptr.dtype.element_ty), mask=mask)
    else:
        m = tl.full([BLOCK_I], float("-inf"), tl.float32)
        s = tl.zeros([BLOCK_I], tl.float32)
        for start in range(0, n_red, BLOCK_R):
            r = start + r0
            x = tl.load(x_ptr + base + r.to(tl.int64) * n_inner, mask=(r < n_red) & col_ok, other=float("inf"))
            x = -x.to(tl.float32)
            m_new = tl.maximum(m, tl.max(x, axis=0))
            m_ref = tl.where(m_new == float("-inf"), 0.0, m_new)
            s = s * tl.exp(m - m_ref) + tl.sum(tl.exp(x - m_ref[None, :]), axis=0)
            m = m_new
        inv_s = (1.0 / s)[None, :]
        for start in range(0, n_red, BLOCK_R):
            r = start + r0
            mask = (r < n_red) & col_ok
            offs = base + r.to(tl.int64) * n_inner
            x = -tl.load(x_ptr + offs, mask=mask, other=float("inf")).to(tl.float32)
            tl.store(y_ptr + offs, (tl.exp(x - m[None, :]) * inv_s).to(y_ptr.dtype.element_ty), mask=mask)


def _warps(tile):
    return 4 if tile <= 2048 else 8 if tile <= 4096 else 16


def softmin(input, dim):
    x = input.contiguous()
    out = torch.empty_like(x)
    if x.numel() == 0:
        return out
    shape = list(x.shape) if x.dim() > 0 else [1]
    d = dim % len(shape)
    n_red = shape[d]
    outer = math.prod(shape[:d])
    inner = math.prod(shape[d + 1:])
    width = triton.next_power_of_2(n_red)

    if inner == 1:
        if width <= MAX_ONE_TILE:
            # Whole rows in one tile; short rows share a program so that each tile holds ~TILE elements.
            BLOCK_N, one_tile = width, True
            BLOCK_M = min(max(TILE // BLOCK_N, 1), triton.next_power_of_2(outer))
        else:
            BLOCK_M, BLOCK_N, one_tile = 1, TILE, False
        _rows_kernel[(triton.cdiv(outer, BLOCK_M),)](x, out, outer, n_red, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                                                     ONE_TILE=one_tile, num_warps=_warps(BLOCK_M * BLOCK_N))
    else:
        # 32 adjacent columns (128 B of fp32) per tile row: coalesced, and many programs when inner is large.
        BLOCK_I = min(triton.next_power_of_2(inner), 32)
        one_tile = width * BLOCK_I <= MAX_ONE_TILE
        BLOCK_R = width if one_tile else TILE // BLOCK_I
        _cols_kernel[(outer * triton.cdiv(inner, BLOCK_I),)](x, out, n_red, inner, BLOCK_R=BLOCK_R,
                                                             BLOCK_I=BLOCK_I, ONE_TILE=one_tile,
                                                             num_warps=_warps(BLOCK_R * BLOCK_I))
    return out
